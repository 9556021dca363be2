#include "CorpusTokenizer.h"

#include "FileIo.h"
#include "Sha256.h"
#include "TokenShard.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace swarmtrain {

namespace {

constexpr char kManifestName[] = "manifest.json";

std::string shardId(int split, std::size_t index)
{
    char digits[16];
    std::snprintf(digits, sizeof digits, "%06zu", index);
    return split == 0 ? std::string(digits) : "validation-" + std::string(digits);
}

double secondsNow()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string megabytes(std::uint64_t bytes) { return std::to_string(bytes / 1'000'000) + " MB"; }

// Leftovers of a write the kill interrupted (writeFileAtomically's temp files).
void removeTempFiles(const std::filesystem::path &dir)
{
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(".") && name.find(".tmp-") != std::string::npos)
            std::filesystem::remove(entry.path(), ec);
    }
}

} // namespace

std::uint64_t textBytesOf(const Tokenizer &tokenizer, std::span<const std::int32_t> tokens)
{
    const std::int32_t end = tokenizer.endOfText();
    std::uint64_t bytes = 0;
    for (auto begin = tokens.begin(); begin != tokens.end();) {
        const auto stop = end >= 0 ? std::find(begin, tokens.end(), end) : tokens.end();
        bytes += tokenizer.decode(std::span<const std::int32_t>(begin, stop)).size();
        begin = stop == tokens.end() ? stop : stop + 1;
    }
    return bytes;
}

CorpusTokenizer::CorpusTokenizer(const CorpusInputs &inputs, const Tokenizer &tokenizer, CorpusReadOptions read,
                                 ShardingOptions sharding, std::filesystem::path dir, Log log)
    : m_inputs(inputs)
    , m_tokenizer(tokenizer)
    , m_read(std::move(read))
    , m_sharding(sharding)
    , m_dir(std::move(dir))
    , m_log(log ? std::move(log) : Log([](const std::string &) {}))
{
}

std::string CorpusTokenizer::corpusKey() const
{
    const nlohmann::json key = {{"pass", 1},
                                {"inputs", m_inputs.sha256()},
                                {"text_field", m_read.textField},
                                {"max_line_bytes", m_read.maxLineBytes},
                                {"max_document_bytes", m_read.maxDocumentBytes},
                                {"max_document_tokens", m_read.maxDocumentTokens},
                                {"tokenizer", m_tokenizer.sha256()},
                                {"shard_tokens", m_sharding.shardTokens},
                                {"validation_every", m_sharding.validationEvery},
                                {"max_validation_tokens", m_sharding.maxValidationTokens}};
    const std::string text = key.dump();
    return Sha256::hexOf(std::as_bytes(std::span(text)));
}

Result<void> CorpusTokenizer::restore()
{
    Result<ShardJournal> journal = ShardJournal::open(m_dir, corpusKey(), m_log);
    if (!journal)
        return journal.error();
    m_journal = std::move(journal).value();
    for (const ShardJournal::Entry &entry : m_journal->entries()) {
        Split &split = m_splits[std::size_t(entry.split)];
        if (entry.shard.id != shardId(entry.split, split.shards.size()))
            return makeError(m_dir.string() + "/journal.jsonl lists shard " + entry.shard.id + " out of order");
        split.committed += entry.shard.tokens;
        split.shards.push_back(entry.shard);
        m_state = entry.resume;
    }
    if (!m_journal->entries().empty()) {
        m_log("resuming the interrupted tokenizing pass: " + std::to_string(m_journal->entries().size())
              + " shards are done; reading again from document " + std::to_string(m_state.document));
    }
    return {};
}

PassState CorpusTokenizer::resumePoint() const
{
    PassState earliest = m_state;
    for (const Split &split : m_splits) {
        if (!split.pending.empty() && split.pending.front().before.document < earliest.document)
            earliest = split.pending.front().before;
    }
    return earliest;
}

Result<void> CorpusTokenizer::writeShard(int index, std::size_t count)
{
    Split &split = m_splits[std::size_t(index)];
    const std::uint64_t end = split.committed + count;
    TokenShardHeader header;
    header.vocabSize = std::uint32_t(m_tokenizer.vocabSize());
    parseSha256Hex(m_tokenizer.sha256(), header.tokenizerSha256);
    while (!split.ends.empty() && split.ends.front() < end) {
        ++header.documents;
        split.ends.pop_front();
    }
    const std::vector<std::byte> bytes = encodeTokenShard(header, std::span(split.buffer.data(), count));
    ShardRecord record{shardId(index, split.shards.size()), bytes.size(), count, header.documents, Sha256::hexOf(bytes)};
    if (Result<void> written = writeFileAtomically(m_dir / record.fileName(), bytes); !written)
        return written.error();
    split.buffer.erase(split.buffer.begin(), split.buffer.begin() + std::ptrdiff_t(count));
    split.committed = end;
    while (!split.pending.empty() && split.pending.front().end <= end)
        split.pending.pop_front();
    if (Result<void> journaled = m_journal->append({index, record, resumePoint()}); !journaled)
        return journaled.error();
    split.shards.push_back(std::move(record));
    if (m_sharding.stopAfterShards > 0 && ++m_shardsThisRun >= m_sharding.stopAfterShards) {
        return makeError("the tokenizing pass stopped after " + std::to_string(m_shardsThisRun)
                         + " shards, as the test flag asked");
    }
    return {};
}

Result<void> CorpusTokenizer::add(const Document &document)
{
    std::vector<std::int32_t> tokens;
    std::uint64_t bytes = document.text.size();
    if (document.pretokenized) {
        tokens = document.tokens;
    } else {
        Result<std::vector<std::int32_t>> encoded = m_tokenizer.encode(document.text);
        if (!encoded)
            return makeError(document.where + ": " + encoded.error().message);
        tokens = std::move(encoded).value();
    }
    tokens.insert(tokens.end(), m_separator.begin(), m_separator.end());

    const std::uint64_t ordinal = m_state.document;
    const bool held = m_sharding.validationEvery > 0 && ordinal % m_sharding.validationEvery == m_sharding.validationEvery - 1
                      && m_state.produced[kValidation] < m_sharding.maxValidationTokens;
    const int index = held ? kValidation : kTrain;
    Split &split = m_splits[std::size_t(index)];
    const PassState before = m_state;
    const std::uint64_t begin = m_state.produced[std::size_t(index)];
    const std::uint64_t end = begin + tokens.size();
    m_state.document = ordinal + 1;
    m_state.produced[std::size_t(index)] = end;
    ++m_state.documents[std::size_t(index)];
    if (held) {
        if (document.pretokenized)
            bytes = m_tokenizer.decode(document.tokens).size();
        m_state.validationBytes += bytes + m_separatorBytes;
    }
    if (end <= split.committed)
        return {}; // a resumed pass reading again what is in shards already
    split.pending.push_back({begin, end, before});
    split.ends.push_back(end - 1);
    const std::size_t skip = std::size_t(split.committed > begin ? split.committed - begin : 0);
    split.buffer.insert(split.buffer.end(), tokens.begin() + std::ptrdiff_t(skip), tokens.end());
    while (split.buffer.size() >= m_sharding.shardTokens) {
        if (Result<void> written = writeShard(index, std::size_t(m_sharding.shardTokens)); !written)
            return written;
    }
    return {};
}

void CorpusTokenizer::progress(const CorpusReader &reader, bool force)
{
    const double now = secondsNow();
    if (!force && now - m_lastProgress < 10.0)
        return;
    m_lastProgress = now;
    m_log("tokenizing: " + megabytes(reader.bytesDone()) + " of " + megabytes(m_inputs.totalBytes()) + " read, "
          + std::to_string(m_state.document) + " documents, " + std::to_string(m_splits[kTrain].shards.size())
          + " training shards and " + std::to_string(m_splits[kValidation].shards.size()) + " validation shards");
}

Result<CorpusManifest> CorpusTokenizer::finish(const CorpusReader &reader)
{
    for (int index : {kTrain, kValidation}) {
        Split &split = m_splits[std::size_t(index)];
        if (!split.buffer.empty()) {
            if (Result<void> written = writeShard(index, split.buffer.size()); !written)
                return written.error();
        }
    }
    if (m_splits[kValidation].shards.empty() || m_splits[kTrain].shards.empty()) {
        return makeError("the corpus holds " + std::to_string(m_state.document) + " documents, too few to hold every "
                         + std::to_string(m_sharding.validationEvery)
                         + "th back for validation and train on the rest (a .txt's documents are its paragraphs, "
                           "separated by blank lines)");
    }
    CorpusManifest manifest;
    manifest.corpusKey = corpusKey();
    manifest.inputsSha256 = m_inputs.sha256();
    manifest.tokenizerKind = tokenizerKindName(m_tokenizer.kind());
    manifest.tokenizerSha256 = m_tokenizer.sha256();
    manifest.vocabSize = std::uint32_t(m_tokenizer.vocabSize());
    manifest.shardTokens = m_sharding.shardTokens;
    manifest.documents = m_state.document;
    manifest.badRecords = reader.badRecords().count();
    manifest.train = m_splits[kTrain].shards;
    manifest.validation = m_splits[kValidation].shards;
    manifest.validationDocuments = m_state.documents[kValidation];
    manifest.validationTokens = m_state.produced[kValidation];
    manifest.validationBytes = m_state.validationBytes;
    const std::string json = manifest.toJson();
    if (Result<void> written = writeFileAtomically(m_dir / kManifestName, std::as_bytes(std::span(json))); !written)
        return written.error();
    m_journal->remove();
    return manifest;
}

Result<CorpusManifest> CorpusTokenizer::run()
{
    if (m_sharding.shardTokens == 0 || m_sharding.shardTokens > (1u << 30))
        return makeError("the shard size must be from 1 to 2^30 tokens");
    std::error_code ec;
    std::filesystem::create_directories(m_dir, ec);
    if (ec)
        return makeError("cannot create " + m_dir.string() + ": " + ec.message());
    removeTempFiles(m_dir);
    if (m_tokenizer.endOfText() >= 0) {
        m_separator = {m_tokenizer.endOfText()};
    } else {
        Result<std::vector<std::int32_t>> separator = m_tokenizer.encode("\n\n");
        if (!separator)
            return makeError("the tokenizer cannot encode the documents' separator: " + separator.error().message);
        m_separator = std::move(separator).value();
    }
    m_separatorBytes = m_tokenizer.decode(m_separator).size();
    if (Result<void> restored = restore(); !restored)
        return restored.error();

    CorpusReader reader(m_inputs, m_read, TokenSpace{std::int32_t(m_tokenizer.vocabSize()), m_tokenizer.endOfText()},
                        m_log);
    Document document;
    for (std::uint64_t ordinal = 0;; ++ordinal) {
        Result<bool> got = reader.next(document);
        if (!got)
            return got.error();
        if (!*got)
            break;
        if (ordinal < m_state.document)
            continue; // in shards already (a resumed pass)
        if (Result<void> added = add(document); !added)
            return added.error();
        progress(reader, false);
    }
    progress(reader, true);
    if (reader.badRecords().count() > 0)
        m_log("skipped " + std::to_string(reader.badRecords().count()) + " bad records (the first are logged above)");
    return finish(reader);
}

} // namespace swarmtrain

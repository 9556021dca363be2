#include "TextDataset.h"

#include "FileIo.h"
#include "Tokenizer.h"

#include <algorithm>
#include <set>

namespace swarmtrain {

namespace {

constexpr std::uint64_t kMaxCorpusBytes = 4ull << 30;

// Why `bytes` is not text, or an empty string when it is.
std::string whyNotText(const std::string &bytes)
{
    if (const std::size_t nul = bytes.find('\0'); nul != std::string::npos)
        return "it holds binary data (a NUL byte at offset " + std::to_string(nul) + ")";
    if (const std::size_t bad = firstInvalidUtf8(bytes); bad != std::string::npos)
        return "it is not UTF-8 text (invalid byte at offset " + std::to_string(bad) + ")";
    return {};
}

Result<std::string> readText(const std::filesystem::path &path)
{
    Result<std::vector<std::byte>> bytes = readFileBytes(path, kMaxCorpusBytes);
    if (!bytes)
        return bytes.error();
    return std::string(reinterpret_cast<const char *>(bytes->data()), bytes->size());
}

} // namespace

Result<TextCorpus> loadTextCorpus(const std::filesystem::path &path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        return makeError("data not found: " + path.string());

    TextCorpus corpus;
    if (!std::filesystem::is_directory(status)) {
        Result<std::string> text = readText(path);
        if (!text)
            return text.error();
        if (text->empty())
            return makeError("data file " + path.string() + " is empty");
        if (const std::string why = whyNotText(*text); !why.empty())
            return makeError("data file " + path.string() + " cannot be used: " + why);
        corpus.text = std::move(text).value();
        corpus.files.push_back(path);
        return corpus;
    }

    std::vector<std::filesystem::path> entries;
    for (const auto &entry : std::filesystem::directory_iterator(path, ec)) {
        if (entry.is_regular_file(ec))
            entries.push_back(entry.path());
    }
    if (ec)
        return makeError("cannot list " + path.string() + ": " + ec.message());
    std::sort(entries.begin(), entries.end());

    std::set<std::filesystem::path> seen; // symlinked duplicates, such as fortunes' *.u8
    for (const auto &file : entries) {
        const auto canonical = std::filesystem::canonical(file, ec);
        if (ec || !seen.insert(canonical).second)
            continue;
        Result<std::string> text = readText(file);
        if (!text || text->empty() || !whyNotText(*text).empty()) {
            corpus.skipped.push_back(file);
            continue;
        }
        if (!corpus.text.empty() && corpus.text.back() != '\n')
            corpus.text.push_back('\n');
        corpus.text += *text;
        corpus.files.push_back(file);
    }
    if (corpus.files.empty())
        return makeError("no text files in " + path.string());
    return corpus;
}

Result<TextDataset> TextDataset::create(std::vector<std::int32_t> tokens, int blockSize)
{
    const std::size_t trainSize = tokens.size() * 9 / 10;
    const std::size_t valSize = tokens.size() - trainSize;
    const std::size_t needed = std::size_t(blockSize) + 1;
    if (trainSize < needed || valSize < needed) {
        return makeError("corpus too short: " + std::to_string(tokens.size()) + " tokens, but each split (90% train, 10% "
                         "validation) needs at least block_size + 1 = " + std::to_string(needed) + " tokens");
    }
    TextDataset dataset;
    dataset.m_train.assign(tokens.begin(), tokens.begin() + std::ptrdiff_t(trainSize));
    dataset.m_val.assign(tokens.begin() + std::ptrdiff_t(trainSize), tokens.end());
    return dataset;
}

void TextDataset::sampleBatch(Split split, int batch, int blockSize, std::mt19937_64 &rng, std::int64_t *x,
                              std::int64_t *y) const
{
    const std::vector<std::int32_t> &data = tokens(split);
    std::uniform_int_distribution<std::size_t> start(0, data.size() - std::size_t(blockSize) - 1);
    for (int b = 0; b < batch; ++b) {
        const std::size_t s = start(rng);
        for (int t = 0; t < blockSize; ++t) {
            x[b * blockSize + t] = data[s + std::size_t(t)];
            y[b * blockSize + t] = data[s + std::size_t(t) + 1];
        }
    }
}

} // namespace swarmtrain

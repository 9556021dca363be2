#include "SwarmTokenizer.h"

#include "CorpusVocabulary.h"
#include "FileIo.h"
#include "Sha256.h"

#include <nlohmann/json.hpp>

namespace swarmtrain {

namespace {

constexpr char kModelName[] = "tokenizer.model";
constexpr char kRecordName[] = "tokenizer.json";

std::span<const std::byte> asBytes(std::string_view text)
{
    return {reinterpret_cast<const std::byte *>(text.data()), text.size()};
}

// What a learned tokenizer was learned from: the corpus's files and how their text is read.
std::string learnedFrom(const CoordinatorConfig &config, const CorpusInputs &inputs)
{
    const std::string source = inputs.sha256() + "/" + config.corpus.textField + "/"
                               + std::to_string(config.corpus.maxDocumentBytes);
    return Sha256::hexOf(asBytes(source));
}

// The record of a tokenizer learned earlier from this corpus with these settings, if any.
nlohmann::json earlierRecord(const std::filesystem::path &stateDir, const nlohmann::json &wanted)
{
    Result<std::vector<std::byte>> bytes = readFileBytes(stateDir / kRecordName, 16u << 20);
    if (!bytes)
        return nullptr;
    const nlohmann::json record = nlohmann::json::parse(reinterpret_cast<const char *>(bytes->data()),
                                                        reinterpret_cast<const char *>(bytes->data()) + bytes->size(),
                                                        nullptr, false);
    if (record.is_discarded() || !record.is_object())
        return nullptr;
    for (const auto &[key, value] : wanted.items()) {
        if (!record.contains(key) || record.at(key) != value)
            return nullptr;
    }
    return record;
}

Result<Tokenizer> characters(const CoordinatorConfig &config, const CorpusInputs &inputs,
                             const std::function<void(const std::string &)> &log)
{
    const nlohmann::json wanted = {{"kind", "char"}, {"learned_from", learnedFrom(config, inputs)}};
    if (const nlohmann::json record = earlierRecord(config.stateDir, wanted); record.is_object()) {
        const std::string utf8 = record.value("vocabulary", std::string());
        if (firstInvalidUtf8(utf8) == std::string::npos) {
            if (Result<Tokenizer> kept = Tokenizer::fromVocabulary(TokenizerKind::Char, decodeUtf8(utf8)); kept)
                return kept;
        }
    }
    log("collecting the corpus's characters");
    Result<Tokenizer> learned = learnCharacterTokenizer(inputs, config.corpus, log);
    if (!learned)
        return learned;
    std::string utf8;
    for (const char32_t codePoint : learned->vocabulary())
        appendUtf8(utf8, codePoint);
    nlohmann::json record = wanted;
    record["vocabulary"] = utf8;
    const std::string text = record.dump();
    if (Result<void> kept = writeFileAtomically(config.stateDir / kRecordName, asBytes(text)); !kept)
        return kept.error();
    return learned;
}

Result<Tokenizer> trainedSentencePiece(const CoordinatorConfig &config, const CorpusInputs &inputs,
                                       const std::function<void(const std::string &)> &log)
{
    const nlohmann::json wanted = {{"kind", "sentencepiece"},
                                   {"learned_from", learnedFrom(config, inputs)},
                                   {"vocab_size", config.tokenizerVocabSize}};
    const std::filesystem::path modelFile = config.stateDir / kModelName;
    if (const nlohmann::json record = earlierRecord(config.stateDir, wanted); record.is_object()) {
        Result<Tokenizer> kept = Tokenizer::loadSentencePiece(modelFile.string());
        if (kept && kept->sha256() == record.value("sha256", std::string()))
            return kept;
    }
    log("training a SentencePiece tokenizer of " + std::to_string(config.tokenizerVocabSize) + " pieces on the corpus");
    SentencePieceTraining training;
    training.vocabSize = config.tokenizerVocabSize;
    VocabularyPassReport report;
    Result<std::string> model = trainSentencePieceOnCorpus(inputs, config.corpus, training, log, &report);
    if (!model)
        return makeError("cannot train the tokenizer: " + model.error().message);
    Result<Tokenizer> trained = Tokenizer::fromSentencePiece(*model);
    if (!trained)
        return makeError("the trained tokenizer does not load: " + trained.error().message);
    log("trained the tokenizer on " + std::to_string(report.lines) + " lines of " + std::to_string(report.documents)
        + " documents");
    if (Result<void> kept = writeFileAtomically(modelFile, asBytes(*model)); !kept)
        return kept.error();
    nlohmann::json record = wanted;
    record["sha256"] = trained->sha256();
    const std::string text = record.dump();
    if (Result<void> kept = writeFileAtomically(config.stateDir / kRecordName, asBytes(text)); !kept)
        return kept.error();
    return trained;
}

} // namespace

Result<SwarmTokenizer> SwarmTokenizer::prepare(const CoordinatorConfig &config, const CorpusInputs &inputs,
                                               const std::function<void(const std::string &)> &log)
{
    SwarmTokenizer swarm;
    switch (config.tokenizer) {
    case TokenizerKind::Byte:
        return swarm;
    case TokenizerKind::Char: {
        if (inputs.hasTokenFiles())
            return makeError("--tokenizer char learns its vocabulary from the corpus's text, so the corpus cannot hold "
                             ".bin token files (use byte or sentencepiece)");
        Result<Tokenizer> tokenizer = characters(config, inputs, log);
        if (!tokenizer)
            return tokenizer.error();
        swarm.tokenizer = std::move(tokenizer).value();
        return swarm;
    }
    case TokenizerKind::SentencePiece:
        break;
    }
    swarm.modelFile = config.stateDir / kModelName;
    Result<Tokenizer> tokenizer = Tokenizer::byteLevel();
    if (!config.tokenizerModel.empty()) {
        tokenizer = Tokenizer::loadSentencePiece(config.tokenizerModel.string());
        if (!tokenizer)
            return makeError("--tokenizer-model: " + tokenizer.error().message);
    } else {
        tokenizer = trainedSentencePiece(config, inputs, log);
        if (!tokenizer)
            return tokenizer.error();
    }
    swarm.tokenizer = std::move(tokenizer).value();
    return swarm;
}

Result<void> SwarmTokenizer::keepModel() const
{
    if (modelFile.empty())
        return {};
    Result<std::string> held = Sha256::hexOfFile(modelFile);
    if (held && *held == tokenizer.sha256())
        return {};
    return writeFileAtomically(modelFile, asBytes(tokenizer.modelBytes()));
}

} // namespace swarmtrain

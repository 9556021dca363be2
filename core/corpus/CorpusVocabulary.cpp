#include "CorpusVocabulary.h"

#include <vector>

namespace swarmtrain {

Result<Tokenizer> learnCharacterTokenizer(const CorpusInputs &inputs, const CorpusReadOptions &options,
                                          const std::function<void(const std::string &)> &log)
{
    CorpusReader reader(inputs, options, std::nullopt, log);
    std::vector<bool> seen(0x110000, false);
    seen['\n'] = true;
    Document document;
    for (;;) {
        Result<bool> got = reader.next(document);
        if (!got)
            return got.error();
        if (!*got)
            break;
        for (const char32_t codePoint : decodeUtf8(document.text))
            seen[codePoint] = true;
    }
    std::vector<char32_t> codePoints;
    for (char32_t codePoint = 0; codePoint < seen.size(); ++codePoint) {
        if (seen[codePoint])
            codePoints.push_back(codePoint);
    }
    return Tokenizer::fromVocabulary(TokenizerKind::Char, std::move(codePoints));
}

Result<std::string> trainSentencePieceOnCorpus(const CorpusInputs &inputs, const CorpusReadOptions &options,
                                               const SentencePieceTraining &training,
                                               const std::function<void(const std::string &)> &log,
                                               VocabularyPassReport *report)
{
    CorpusReader reader(inputs, options, std::nullopt, log);
    VocabularyPassReport counts;
    Document document;
    std::size_t at = 0; // the next line of `document`
    bool have = false;
    std::string failure;
    Result<std::string> model = trainSentencePiece(training, [&](std::string &line) {
        for (;;) {
            if (!have || at >= document.text.size()) {
                Result<bool> got = reader.next(document);
                if (!got) {
                    failure = got.error().message;
                    return false;
                }
                if (!*got)
                    return false;
                have = true;
                at = 0;
                ++counts.documents;
                counts.bytes += document.text.size();
            }
            std::size_t end = document.text.find('\n', at);
            if (end == std::string::npos)
                end = document.text.size();
            line.assign(document.text, at, end - at);
            at = end + 1;
            if (!line.empty()) {
                ++counts.lines;
                return true;
            }
        }
    });
    counts.badRecords = reader.badRecords().count();
    if (report)
        *report = counts;
    if (!failure.empty())
        return makeError(failure);
    if (counts.lines == 0)
        return makeError("the corpus holds no text to train a tokenizer on");
    return model;
}

} // namespace swarmtrain

#include "PeerTokenizer.h"

#include "CoordinatorSession.h"
#include "Sha256.h"

namespace swarmtrain {

namespace {

Result<Tokenizer> fromAnswer(const TokenizerInfo &info)
{
    if (info.kind == QLatin1StringView("byte"))
        return Tokenizer::byteLevel();
    const QList<uint> codes = info.vocabulary.toUcs4();
    return Tokenizer::fromVocabulary(TokenizerKind::Char, std::vector<char32_t>(codes.begin(), codes.end()));
}

} // namespace

std::string tokenizerMismatch(const Tokenizer &tokenizer, const TokenizerInfo &swarm)
{
    if (QString::fromLatin1(tokenizerKindName(tokenizer.kind())) != swarm.kind)
        return std::string("it is a ") + tokenizerKindName(tokenizer.kind()) + " tokenizer, the swarm's a "
               + swarm.kind.toStdString() + " one";
    if (tokenizer.sha256() != swarm.sha256.toStdString())
        return "its SHA-256 " + tokenizer.sha256() + " differs from the swarm's " + swarm.sha256.toStdString();
    if (tokenizer.vocabSize() != swarm.vocabSize)
        return "it has " + std::to_string(tokenizer.vocabSize()) + " tokens, the swarm's " + std::to_string(swarm.vocabSize);
    return {};
}

Result<Tokenizer> fetchSwarmTokenizer(const JoinAnswer &joined, CoordinatorSession &session,
                                      const std::filesystem::path &dir)
{
    const TokenizerInfo &info = joined.tokenizer;
    Result<Tokenizer> tokenizer = Tokenizer::byteLevel();
    if (info.kind != QLatin1StringView("sentencepiece")) {
        tokenizer = fromAnswer(info);
    } else {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec)
            return makeError("cannot create " + dir.string() + ": " + ec.message());
        const std::filesystem::path file = dir / "tokenizer.model";
        Result<std::string> held = Sha256::hexOfFile(file);
        if (!held || QString::fromStdString(*held) != info.sha256) {
            // Verified against the join answer's SHA-256: a model of another hash is deleted, not kept.
            if (Result<void> got = session.download(QStringLiteral("/v1/tokenizer"), file, info.sha256); !got)
                return makeError("the swarm's tokenizer is refused: " + got.error().message);
        }
        tokenizer = Tokenizer::loadSentencePiece(file.string());
    }
    if (!tokenizer)
        return makeError("the swarm's tokenizer: " + tokenizer.error().message);
    if (const std::string why = tokenizerMismatch(*tokenizer, info); !why.empty())
        return makeError("the swarm's tokenizer is refused: " + why);
    return tokenizer;
}

} // namespace swarmtrain

#pragma once

#include "Result.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace swarmtrain {

enum class TokenizerKind { Char, Byte, SentencePiece };

const char *tokenizerKindName(TokenizerKind kind);

class SentencePieceModel; // SentencePieceTokenizer.cpp

// Character tokenizer (one token per Unicode code point seen in the corpus, sorted, as
// nanoGPT's shakespeare_char), byte tokenizer (256 tokens, any text), or a SentencePiece model
// (BPE with byte fallback, as Llama 2's tokenizer.model) run by the SentencePiece library. The
// character vocabulary and the SentencePiece model are saved with the model, so a checkpoint
// decodes on its own. Copies share the immutable SentencePiece model.
class Tokenizer {
public:
    static Result<Tokenizer> buildCharacter(std::string_view corpus);
    static Tokenizer byteLevel();
    static Result<Tokenizer> fromVocabulary(TokenizerKind kind, std::vector<char32_t> codePoints);
    // A serialized SentencePiece ModelProto (a tokenizer.model file's bytes), checked before the
    // library sees it: bounded sizes, identity normalization, byte fallback (SentencePieceTokenizer.cpp).
    static Result<Tokenizer> fromSentencePiece(std::string model);
    static Result<Tokenizer> loadSentencePiece(const std::string &file);

    TokenizerKind kind() const { return m_kind; }
    int vocabSize() const;
    // The code points of a character vocabulary, in token order (empty otherwise).
    const std::vector<char32_t> &vocabulary() const { return m_vocabulary; }
    // The SentencePiece model's serialized bytes (empty otherwise).
    const std::string &modelBytes() const;
    // The SentencePiece model itself (SentencePieceModel.h), or null.
    const SentencePieceModel *sentencePiece() const { return m_sentencePiece.get(); }
    // SHA-256 (hex) of what defines the tokenizer: the SentencePiece model's bytes, the
    // character vocabulary (UTF-32LE), or "byte".
    std::string sha256() const;
    // The token that ends a document (SentencePiece's </s>), or -1 when the tokenizer has none.
    std::int32_t endOfText() const;

    // Any text: SentencePiece encodes invalid UTF-8 (and U+2581, its own space mark) as byte
    // tokens, so decode(encode(text)) == text byte for byte. The character tokenizer refuses
    // invalid UTF-8 and characters outside its vocabulary.
    Result<std::vector<std::int32_t>> encode(std::string_view text) const;
    std::string decode(std::span<const std::int32_t> tokens) const;

    bool operator==(const Tokenizer &other) const;

private:
    Tokenizer(TokenizerKind kind, std::vector<char32_t> vocabulary);

    TokenizerKind m_kind;
    std::vector<char32_t> m_vocabulary;
    std::unordered_map<char32_t, std::int32_t> m_index;
    std::shared_ptr<const SentencePieceModel> m_sentencePiece;
};

// How `swarmtrain-cli tokenizer train` trains a SentencePiece model: BPE with byte fallback,
// identity normalization, whitespace kept, digits split, as Llama 2's tokenizer was trained.
struct SentencePieceTraining {
    int vocabSize = 4096;
    std::int64_t maxSentences = 2'000'000; // lines sampled from the input, bounding memory
    double characterCoverage = 0.9995;
    int threads = 1;
    std::uint64_t seed = 1;
};

// Trains on the lines `nextLine` hands out (false at the end) and returns the serialized model.
Result<std::string> trainSentencePiece(const SentencePieceTraining &options,
                                       const std::function<bool(std::string &line)> &nextLine);

// Strict UTF-8 decoding: overlong forms, surrogates and truncated sequences are errors.
// Returns the byte offset of the first invalid sequence, or npos when the text is valid.
std::size_t firstInvalidUtf8(std::string_view text);
std::vector<char32_t> decodeUtf8(std::string_view validText);
void appendUtf8(std::string &out, char32_t codePoint);

} // namespace swarmtrain

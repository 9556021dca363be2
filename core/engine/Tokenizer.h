#pragma once

#include "Result.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace swarmtrain {

enum class TokenizerKind { Char, Byte };

const char *tokenizerKindName(TokenizerKind kind);

// Character tokenizer (one token per Unicode code point seen in the corpus, sorted, as
// nanoGPT's shakespeare_char) or byte tokenizer (256 tokens, any text). The character
// vocabulary is saved with the model so a checkpoint decodes on its own.
class Tokenizer {
public:
    static Result<Tokenizer> buildCharacter(std::string_view corpus);
    static Tokenizer byteLevel();
    static Result<Tokenizer> fromVocabulary(TokenizerKind kind, std::vector<char32_t> codePoints);

    TokenizerKind kind() const { return m_kind; }
    int vocabSize() const;
    // The code points of a character vocabulary, in token order (empty for bytes).
    const std::vector<char32_t> &vocabulary() const { return m_vocabulary; }

    Result<std::vector<std::int32_t>> encode(std::string_view text) const;
    std::string decode(std::span<const std::int32_t> tokens) const;

private:
    Tokenizer(TokenizerKind kind, std::vector<char32_t> vocabulary);

    TokenizerKind m_kind;
    std::vector<char32_t> m_vocabulary;
    std::unordered_map<char32_t, std::int32_t> m_index;
};

// Strict UTF-8 decoding: overlong forms, surrogates and truncated sequences are errors.
// Returns the byte offset of the first invalid sequence, or npos when the text is valid.
std::size_t firstInvalidUtf8(std::string_view text);
std::vector<char32_t> decodeUtf8(std::string_view validText);
void appendUtf8(std::string &out, char32_t codePoint);

} // namespace swarmtrain

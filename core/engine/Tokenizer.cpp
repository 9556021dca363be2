#include "Tokenizer.h"

#include "SentencePieceModel.h"
#include "Sha256.h"

#include <algorithm>

namespace swarmtrain {

namespace {

// Decodes one code point at `text[i]`; returns its length in bytes, or 0 when invalid.
std::size_t decodeOne(std::string_view text, std::size_t i, char32_t &out)
{
    const auto byte = [&](std::size_t k) { return std::uint8_t(text[k]); };
    const std::uint8_t lead = byte(i);
    if (lead < 0x80) {
        out = lead;
        return 1;
    }
    std::size_t length;
    char32_t min;
    if ((lead & 0xe0) == 0xc0) {
        length = 2, out = lead & 0x1f, min = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
        length = 3, out = lead & 0x0f, min = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
        length = 4, out = lead & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (i + length > text.size())
        return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80)
            return 0;
        out = (out << 6) | (byte(i + k) & 0x3f);
    }
    if (out < min || out > 0x10ffff || (out >= 0xd800 && out <= 0xdfff))
        return 0;
    return length;
}

} // namespace

const char *tokenizerKindName(TokenizerKind kind)
{
    switch (kind) {
    case TokenizerKind::Char: return "char";
    case TokenizerKind::Byte: return "byte";
    case TokenizerKind::SentencePiece: return "sentencepiece";
    }
    return "?";
}

std::size_t firstInvalidUtf8(std::string_view text)
{
    char32_t cp;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = decodeOne(text, i, cp);
        if (length == 0)
            return i;
        i += length;
    }
    return std::string_view::npos;
}

std::vector<char32_t> decodeUtf8(std::string_view validText)
{
    std::vector<char32_t> out;
    out.reserve(validText.size());
    char32_t cp;
    for (std::size_t i = 0; i < validText.size();) {
        const std::size_t length = decodeOne(validText, i, cp);
        if (length == 0)
            break;
        out.push_back(cp);
        i += length;
    }
    return out;
}

void appendUtf8(std::string &out, char32_t cp)
{
    if (cp < 0x80) {
        out.push_back(char(cp));
    } else if (cp < 0x800) {
        out.push_back(char(0xc0 | (cp >> 6)));
        out.push_back(char(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        out.push_back(char(0xe0 | (cp >> 12)));
        out.push_back(char(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(char(0x80 | (cp & 0x3f)));
    } else {
        out.push_back(char(0xf0 | (cp >> 18)));
        out.push_back(char(0x80 | ((cp >> 12) & 0x3f)));
        out.push_back(char(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(char(0x80 | (cp & 0x3f)));
    }
}

Tokenizer::Tokenizer(TokenizerKind kind, std::vector<char32_t> vocabulary)
    : m_kind(kind)
    , m_vocabulary(std::move(vocabulary))
{
    for (std::size_t i = 0; i < m_vocabulary.size(); ++i)
        m_index.emplace(m_vocabulary[i], std::int32_t(i));
}

Result<Tokenizer> Tokenizer::buildCharacter(std::string_view corpus)
{
    if (const std::size_t bad = firstInvalidUtf8(corpus); bad != std::string_view::npos)
        return makeError("text is not valid UTF-8 (at byte " + std::to_string(bad) + ")");
    std::vector<char32_t> codePoints = decodeUtf8(corpus);
    std::sort(codePoints.begin(), codePoints.end());
    codePoints.erase(std::unique(codePoints.begin(), codePoints.end()), codePoints.end());
    if (codePoints.empty())
        return makeError("cannot build a vocabulary from empty text");
    return Tokenizer(TokenizerKind::Char, std::move(codePoints));
}

Tokenizer Tokenizer::byteLevel() { return Tokenizer(TokenizerKind::Byte, {}); }

Result<Tokenizer> Tokenizer::fromVocabulary(TokenizerKind kind, std::vector<char32_t> codePoints)
{
    if (kind == TokenizerKind::Byte)
        return byteLevel();
    if (codePoints.empty())
        return makeError("character vocabulary is empty");
    for (std::size_t i = 0; i < codePoints.size(); ++i) {
        const char32_t cp = codePoints[i];
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (i > 0 && codePoints[i - 1] >= cp))
            return makeError("character vocabulary is invalid");
    }
    return Tokenizer(TokenizerKind::Char, std::move(codePoints));
}

int Tokenizer::vocabSize() const
{
    if (m_sentencePiece)
        return m_sentencePiece->size();
    return m_kind == TokenizerKind::Byte ? 256 : int(m_vocabulary.size());
}

const std::string &Tokenizer::modelBytes() const
{
    static const std::string none;
    return m_sentencePiece ? m_sentencePiece->bytes() : none;
}

std::string Tokenizer::sha256() const
{
    if (m_sentencePiece)
        return m_sentencePiece->sha256();
    if (m_kind == TokenizerKind::Byte)
        return Sha256::hexOf(std::as_bytes(std::span(std::string_view("byte"))));
    std::vector<std::byte> utf32;
    for (const char32_t cp : m_vocabulary) {
        for (int shift = 0; shift < 32; shift += 8)
            utf32.push_back(std::byte((cp >> shift) & 0xff));
    }
    return Sha256::hexOf(utf32);
}

std::int32_t Tokenizer::endOfText() const { return m_sentencePiece ? m_sentencePiece->eos() : -1; }

bool Tokenizer::operator==(const Tokenizer &other) const
{
    return m_kind == other.m_kind && m_vocabulary == other.m_vocabulary && modelBytes() == other.modelBytes();
}

Result<std::vector<std::int32_t>> Tokenizer::encode(std::string_view text) const
{
    if (m_sentencePiece)
        return m_sentencePiece->encode(text);
    std::vector<std::int32_t> tokens;
    if (m_kind == TokenizerKind::Byte) {
        tokens.reserve(text.size());
        for (char c : text)
            tokens.push_back(std::uint8_t(c));
        return tokens;
    }
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        return makeError("text is not valid UTF-8 (at byte " + std::to_string(bad) + ")");
    const std::vector<char32_t> codePoints = decodeUtf8(text);
    tokens.reserve(codePoints.size());
    for (char32_t cp : codePoints) {
        const auto it = m_index.find(cp);
        if (it == m_index.end()) {
            std::string shown;
            appendUtf8(shown, cp);
            return makeError("character '" + shown + "' is not in the model's vocabulary");
        }
        tokens.push_back(it->second);
    }
    return tokens;
}

std::string Tokenizer::decode(std::span<const std::int32_t> tokens) const
{
    if (m_sentencePiece)
        return m_sentencePiece->decode(tokens);
    std::string text;
    text.reserve(tokens.size());
    for (std::int32_t token : tokens) {
        if (token < 0 || token >= vocabSize())
            continue;
        if (m_kind == TokenizerKind::Byte)
            text.push_back(char(token));
        else
            appendUtf8(text, m_vocabulary[std::size_t(token)]);
    }
    return text;
}

} // namespace swarmtrain

#pragma once

#include "Result.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace swarmtrain {

// One piece of a SentencePiece model as its ModelProto holds it (what exports write: a GGUF
// vocabulary, a Hugging Face tokenizer's special tokens).
struct SentencePiece {
    enum Type { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 }; // the proto's
    std::string text; // as stored: U+2581 for a space, <0xAB> for a byte piece
    float score = 0.0f;
    Type type = Normal;
};

// A checked SentencePiece model and the library's processors for it, behind Tokenizer
// (SentencePieceTokenizer.cpp). Immutable once loaded; encode and decode are thread-safe.
class SentencePieceModel {
public:
    // Checks the serialized ModelProto field by field before the library parses it: sizes
    // bounded, BPE or unigram, one unknown piece, all 256 byte pieces, identity normalization
    // without a character map, whitespace kept.
    static Result<std::shared_ptr<const SentencePieceModel>> load(std::string bytes);
    ~SentencePieceModel();

    int size() const { return int(m_text.size()); }
    std::int32_t eos() const { return m_eos; }
    const std::string &bytes() const { return m_bytes; }
    const std::string &sha256() const { return m_sha256; }
    // Whether the model puts a space mark before the text (its normalizer's add_dummy_prefix).
    bool addsDummyPrefix() const { return m_dummyPrefix; }
    // Every piece, in id order.
    const std::vector<SentencePiece> &pieces() const { return m_pieces; }

    Result<std::vector<std::int32_t>> encode(std::string_view text) const;
    std::string decode(std::span<const std::int32_t> ids) const;

private:
    SentencePieceModel();

    struct Processors; // the library's, for the model as it is and without the dummy prefix
    std::unique_ptr<Processors> m_processors;
    bool m_dummyPrefix = true;
    std::vector<SentencePiece> m_pieces;
    std::vector<std::string> m_text; // each id's bytes; empty for control and unknown pieces
    std::vector<bool> m_isByte;
    std::array<std::int32_t, 256> m_byteIds{};
    std::int32_t m_eos = -1;
    std::string m_bytes;
    std::string m_sha256;
};

} // namespace swarmtrain

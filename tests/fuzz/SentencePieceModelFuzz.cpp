// A SentencePiece tokenizer.model (core/engine/SentencePieceTokenizer.cpp), as a peer downloads it
// from a coordinator it may not trust (GET /v1/tokenizer) or a host brings it: hostile bytes must
// be refused with an error, never crash the field-by-field check or the library behind it. What is
// accepted must give any text back byte for byte, with ids inside its vocabulary.
//
// The seed (corpus/sentencepiece/model) is a model the library trains at build time
// (MakeSentencePieceSeed); the module is this build's, loaded without RTLD_DEEPBIND, which
// AddressSanitizer refuses (no LibTorch here, so nothing to keep its protobuf away from).
#include "FuzzCheck.h"
#include "Tokenizer.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace swarmtrain;
using swarmtrain::fuzz::check;

namespace {

constexpr char kWithNul[] = "invalid \xff\xc0\x80 bytes and a \0 NUL";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const Result<Tokenizer> tokenizer = Tokenizer::fromSentencePiece(std::string(reinterpret_cast<const char *>(data), size));
    if (!tokenizer) {
        check(!tokenizer.error().message.empty());
        return 0;
    }
    const std::vector<std::string> texts = {"", "Hello, world!\n\n  two  spaces", "\xe2\x96\x81 the space mark",
                                            "caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80",
                                            std::string(kWithNul, sizeof kWithNul - 1)};
    for (const std::string &text : texts) {
        const Result<std::vector<std::int32_t>> ids = tokenizer->encode(text);
        if (!ids)
            std::fprintf(stderr, "accepted model cannot encode: %s\n", ids.error().message.c_str());
        check(ids.ok());
        for (const std::int32_t id : *ids)
            check(id >= 0 && id < tokenizer->vocabSize());
        const std::string back = tokenizer->decode(*ids);
        if (back != text)
            std::fprintf(stderr, "accepted model decodes \"%s\" as \"%s\"\n", text.c_str(), back.c_str());
        check(back == text);
    }
    return 0;
}

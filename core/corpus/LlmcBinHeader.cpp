#include "LlmcBinHeader.h"

#include "ByteOrder.h"

#include <string>

namespace swarmtrain {

Result<LlmcBinHeader> decodeLlmcBinHeader(std::span<const std::byte> header, std::uint64_t fileBytes)
{
    if (header.size() < LlmcBinHeader::kBytes || fileBytes < LlmcBinHeader::kBytes)
        return makeError("is shorter than llm.c's 1024-byte header");
    const auto field = [&](std::size_t i) { return std::int32_t(byteorder::getU32(header.data() + 4 * i)); };
    if (field(0) != LlmcBinHeader::kMagic)
        return makeError("does not start with llm.c's magic 20240520 (found " + std::to_string(field(0)) + ")");
    LlmcBinHeader out;
    out.version = field(1);
    if (out.version != 1 && out.version != 2)
        return makeError("has llm.c version " + std::to_string(out.version) + "; 1 (uint16) and 2 (uint32) are read");
    out.tokenBytes = out.version == 1 ? 2 : 4;
    if (field(2) < 0)
        return makeError("claims a negative token count (" + std::to_string(field(2)) + ")");
    out.tokens = std::uint64_t(field(2));
    const std::uint64_t payload = fileBytes - LlmcBinHeader::kBytes;
    if (out.tokens > payload / out.tokenBytes) {
        return makeError("claims " + std::to_string(out.tokens) + " tokens, but the file holds "
                         + std::to_string(payload / out.tokenBytes) + " after its header");
    }
    if (payload != out.tokens * out.tokenBytes) {
        return makeError("claims " + std::to_string(out.tokens) + " tokens, but " + std::to_string(payload)
                         + " bytes follow its header");
    }
    return out;
}

} // namespace swarmtrain

// decodeRangeAverages on hostile input (POST /v1/round/averages): whatever it accepts must be
// sorted, disjoint ranges inside the parameter count, each with exactly its encoded size, and
// must encode back to the same bytes.
#include "FuzzCheck.h"
#include "Quantization.h"
#include "RangeAverageBlob.h"

#include <cstdlib>
#include <vector>

using namespace swarmtrain;
using swarmtrain::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    constexpr std::int64_t kParameterCount = 1 << 20;
    const auto *begin = reinterpret_cast<const std::byte *>(data);
    const std::vector<std::byte> bytes(begin, begin + size);
    Result<std::vector<RangeAverage>> ranges = decodeRangeAverages(bytes, kParameterCount);
    if (!ranges) {
        check(!ranges.error().message.empty());
        return 0;
    }
    check(ranges->size() <= kMaxBlobRanges);
    std::int64_t previousEnd = 0;
    for (const RangeAverage &range : *ranges) {
        check(range.begin >= previousEnd && range.begin < range.end && range.end <= kParameterCount);
        check(range.payload.size() == encodedQuantizedSize(std::size_t(range.end - range.begin)));
        previousEnd = range.end;
    }
    check(encodeRangeAverages(*ranges) == bytes);
    return 0;
}

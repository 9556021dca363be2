#include "RangeAverageBlob.h"

#include "Quantization.h"

#include <string>

namespace swarmtrain {

namespace {

void putU64(std::vector<std::byte> &out, std::uint64_t value)
{
    for (int i = 0; i < 8; ++i)
        out.push_back(std::byte((value >> (8 * i)) & 0xff));
}

std::uint64_t getU64(std::span<const std::byte> bytes)
{
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
        value |= std::uint64_t(bytes[std::size_t(i)]) << (8 * i);
    return value;
}

std::string rangeText(std::size_t index, std::uint64_t begin, std::uint64_t end)
{
    return "range " + std::to_string(index) + " [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

} // namespace

std::vector<std::byte> encodeRangeAverages(std::span<const RangeAverage> ranges)
{
    std::vector<std::byte> out;
    for (const RangeAverage &range : ranges) {
        putU64(out, std::uint64_t(range.begin));
        putU64(out, std::uint64_t(range.end));
        putU64(out, range.payload.size());
        out.insert(out.end(), range.payload.begin(), range.payload.end());
    }
    return out;
}

Result<std::vector<RangeAverage>> decodeRangeAverages(std::span<const std::byte> bytes, std::int64_t parameterCount)
{
    if (parameterCount <= 0)
        return makeError("the model has " + std::to_string(parameterCount) + " parameters");
    std::vector<RangeAverage> ranges;
    std::uint64_t previousEnd = 0;
    std::size_t offset = 0;
    while (offset < bytes.size()) {
        const std::size_t index = ranges.size();
        if (index == kMaxBlobRanges)
            return makeError("more than " + std::to_string(kMaxBlobRanges) + " ranges");
        if (bytes.size() - offset < kRangeAverageHeaderBytes)
            return makeError("range " + std::to_string(index) + "'s header is cut short");
        const std::uint64_t begin = getU64(bytes.subspan(offset));
        const std::uint64_t end = getU64(bytes.subspan(offset + 8));
        const std::uint64_t length = getU64(bytes.subspan(offset + 16));
        offset += kRangeAverageHeaderBytes;
        if (begin >= end || end > std::uint64_t(parameterCount))
            return makeError(rangeText(index, begin, end) + " is empty or outside the "
                             + std::to_string(parameterCount) + " parameters");
        if (index > 0 && begin < previousEnd)
            return makeError(rangeText(index, begin, end) + " is out of order or overlaps the range before");
        if (length != encodedQuantizedSize(std::size_t(end - begin)))
            return makeError(rangeText(index, begin, end) + " has a payload of " + std::to_string(length)
                             + " bytes, not its values' encoded size");
        if (length > bytes.size() - offset)
            return makeError(rangeText(index, begin, end) + "'s payload is cut short");
        const auto payload = bytes.subspan(offset, std::size_t(length));
        ranges.push_back({std::int64_t(begin), std::int64_t(end), {payload.begin(), payload.end()}});
        offset += std::size_t(length);
        previousEnd = end;
    }
    return ranges;
}

} // namespace swarmtrain

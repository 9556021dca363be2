#pragma once

#include "Frame.h"
#include "RangeAggregation.h"

#include <QByteArray>
#include <QCryptographicHash>

#include <cstddef>
#include <cstdint>
#include <vector>

// The bytes and hashes all of ButterflyAllReduce's files pass around. When a checker or referee
// takes a recomputed average for the same one is RangeAggregation.h's (kRangeTolerance).
namespace swarmtrain::range_agreement {

inline QByteArray toBytes(const std::vector<std::byte> &bytes)
{
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size()));
}

inline QByteArray sha256(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

// Whether a frame is about the range [begin, end).
inline bool sameRange(const FrameHeader &header, std::int64_t begin, std::int64_t end)
{
    return std::int64_t(header.range_begin()) == begin && std::int64_t(header.range_end()) == end;
}

} // namespace swarmtrain::range_agreement

#pragma once

#include "Frame.h"
#include "RangeAggregation.h"

#include <QByteArray>
#include <QCryptographicHash>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

// What a range's checker and referee (ButterflyRangeCheck.cpp, ButterflyRangeReferee.cpp) take
// for the same average (the same pieces give the same numbers on one machine, and nearly the
// same across CPUs and compilers), and the bytes and hashes all of ButterflyAllReduce's files
// pass around.
namespace swarmtrain::range_agreement {

constexpr double kTolerance = kRangeTolerance;

inline double relativeDifference(const std::vector<float> &mine, const std::vector<float> &theirs)
{
    return rangeRelativeDifference(mine, theirs);
}

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

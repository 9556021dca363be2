#pragma once

#include "Frame.h"

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

// A recomputed average within this share (relative L2) of another agrees with it.
constexpr double kTolerance = 0.01;

// |mine - theirs| / |mine| (1 when the sizes differ).
inline double relativeDifference(const std::vector<float> &mine, const std::vector<float> &theirs)
{
    if (mine.size() != theirs.size())
        return 1.0;
    double difference = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < mine.size(); ++i) {
        const double d = double(mine[i]) - double(theirs[i]);
        difference += d * d;
        norm += double(mine[i]) * double(mine[i]);
    }
    return norm > 0.0 ? std::sqrt(difference / norm) : (difference > 0.0 ? 1.0 : 0.0);
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

#include "LinkMatrix.h"

#include <algorithm>

namespace swarmtrain {

namespace {

std::optional<double> median(std::vector<double> values)
{
    if (values.empty())
        return std::nullopt;
    const std::size_t middle = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(middle), values.end());
    return values[middle];
}

} // namespace

LinkMatrix LinkMatrix::build(std::vector<QString> peers, const std::vector<LinkRecord> &links, qint64 nowMs,
                             const LinkMatrixOptions &options)
{
    LinkMatrix matrix;
    matrix.m_peers = std::move(peers);
    for (int i = 0; i < matrix.size(); ++i)
        matrix.m_index.insert(matrix.m_peers[std::size_t(i)], i);
    matrix.m_entries.assign(matrix.m_peers.size() * matrix.m_peers.size(), LinkEntry{});
    for (const LinkRecord &link : links) {
        const int from = matrix.indexOf(link.fromKeyId), to = matrix.indexOf(link.toKeyId);
        const double age = double(nowMs - link.measuredMs) / 1000.0;
        if (from < 0 || to < 0 || from == to || age > options.maxAgeSeconds)
            continue;
        LinkEntry &entry = matrix.entry(from, to);
        if (entry.measured && entry.ageSeconds <= age)
            continue; // a newer measurement of this direction is there
        matrix.m_measured += entry.measured ? 0 : 1;
        entry = {link.rttMs / 2000.0, link.bytesPerSecond, std::max(age, 0.0), true};
    }
    matrix.estimateMissing(options);
    return matrix;
}

void LinkMatrix::estimateMissing(const LinkMatrixOptions &options)
{
    const int n = size();
    // A direction not measured takes the other direction's figures when those were.
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (i != j && !at(i, j).measured && at(j, i).measured) {
                entry(i, j) = at(j, i);
                entry(i, j).measured = false;
            }
        }
    }
    std::vector<double> delay(std::size_t(n), options.defaultDelaySeconds);
    std::vector<double> up(std::size_t(n), options.defaultBytesPerSecond), down = up;
    for (int p = 0; p < n; ++p) {
        std::vector<double> delays, sent, received;
        for (int q = 0; q < n; ++q) {
            if (p == q)
                continue;
            if (at(p, q).measured) {
                delays.push_back(at(p, q).delaySeconds);
                sent.push_back(at(p, q).bytesPerSecond);
            }
            if (at(q, p).measured) {
                delays.push_back(at(q, p).delaySeconds);
                received.push_back(at(q, p).bytesPerSecond);
            }
        }
        delay[std::size_t(p)] = median(delays).value_or(options.defaultDelaySeconds);
        up[std::size_t(p)] = median(sent).value_or(median(received).value_or(options.defaultBytesPerSecond));
        down[std::size_t(p)] = median(received).value_or(up[std::size_t(p)]);
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (i == j || at(i, j).bytesPerSecond > 0.0)
                continue;
            entry(i, j) = {(delay[std::size_t(i)] + delay[std::size_t(j)]) / 2.0,
                           std::min(up[std::size_t(i)], down[std::size_t(j)]), 0.0, false};
        }
    }
}

std::optional<double> LinkMatrix::peerBandwidth(int peer) const
{
    std::vector<double> sent, received;
    for (int other = 0; other < size(); ++other) {
        if (other == peer)
            continue;
        if (at(peer, other).measured)
            sent.push_back(at(peer, other).bytesPerSecond);
        if (at(other, peer).measured)
            received.push_back(at(other, peer).bytesPerSecond);
    }
    return sent.empty() ? median(std::move(received)) : median(std::move(sent));
}

} // namespace swarmtrain

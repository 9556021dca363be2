#include "BottleneckMatching.h"

#include <algorithm>
#include <limits>

namespace swarmtrain::scheduler {

double BottleneckMatcher::bottleneck(const std::vector<double> &cost, int n)
{
    if (n <= 0)
        return 0.0;
    const std::size_t size = std::size_t(n);
    const auto at = [&](int row, int column) { return cost[std::size_t(row) * size + std::size_t(column)]; };

    double threshold = 0.0;
    for (int row = 0; row < n; ++row) {
        double cheapest = std::numeric_limits<double>::infinity();
        for (int column = 0; column < n; ++column)
            cheapest = std::min(cheapest, at(row, column));
        threshold = std::max(threshold, cheapest);
    }
    for (int column = 0; column < n; ++column) {
        double cheapest = std::numeric_limits<double>::infinity();
        for (int row = 0; row < n; ++row)
            cheapest = std::min(cheapest, at(row, column));
        threshold = std::max(threshold, cheapest);
    }

    m_rowOfColumn.assign(size, -1);
    m_columnOfRow.assign(size, -1);
    for (int row = 0; row < n; ++row) {
        for (int column = 0; column < n; ++column) {
            if (at(row, column) <= threshold && m_rowOfColumn[std::size_t(column)] < 0) {
                m_rowOfColumn[std::size_t(column)] = row;
                m_columnOfRow[std::size_t(row)] = column;
                break;
            }
        }
    }

    m_reach.resize(size);
    m_previousRow.resize(size);
    m_done.resize(size);
    for (int start = 0; start < n; ++start) {
        if (m_columnOfRow[std::size_t(start)] >= 0)
            continue;
        // m_reach[c]: the smallest largest edge of an alternating path from `start` to column c.
        for (int column = 0; column < n; ++column) {
            m_reach[std::size_t(column)] = at(start, column);
            m_previousRow[std::size_t(column)] = start;
            m_done[std::size_t(column)] = 0;
        }
        while (true) {
            int next = -1;
            for (int column = 0; column < n; ++column) {
                if (!m_done[std::size_t(column)]
                    && (next < 0 || m_reach[std::size_t(column)] < m_reach[std::size_t(next)]))
                    next = column;
            }
            m_done[std::size_t(next)] = 1;
            const int holder = m_rowOfColumn[std::size_t(next)];
            if (holder < 0) {
                threshold = std::max(threshold, m_reach[std::size_t(next)]);
                // Flip the path: each row on it takes the column it was reached through.
                for (int column = next;;) {
                    const int row = m_previousRow[std::size_t(column)];
                    const int freed = m_columnOfRow[std::size_t(row)];
                    m_columnOfRow[std::size_t(row)] = column;
                    m_rowOfColumn[std::size_t(column)] = row;
                    if (row == start)
                        break;
                    column = freed;
                }
                break;
            }
            const double through = m_reach[std::size_t(next)];
            for (int column = 0; column < n; ++column) {
                const double reach = std::max(through, at(holder, column));
                if (!m_done[std::size_t(column)] && reach < m_reach[std::size_t(column)]) {
                    m_reach[std::size_t(column)] = reach;
                    m_previousRow[std::size_t(column)] = holder;
                }
            }
        }
    }
    return threshold;
}

bool BottleneckMatcher::augmentBelow(const std::vector<double> &cost, int n, double threshold, int row)
{
    for (int column = 0; column < n; ++column) {
        if (cost[std::size_t(row) * std::size_t(n) + std::size_t(column)] >= threshold
            || m_visited[std::size_t(column)] == m_stamp)
            continue;
        m_visited[std::size_t(column)] = m_stamp;
        const int holder = m_rowOfColumn[std::size_t(column)];
        if (holder < 0 || augmentBelow(cost, n, threshold, holder)) {
            m_rowOfColumn[std::size_t(column)] = row;
            return true;
        }
    }
    return false;
}

int BottleneckMatcher::matchedBelow(const std::vector<double> &cost, int n, double threshold)
{
    m_rowOfColumn.assign(std::size_t(n), -1);
    if (m_visited.size() < std::size_t(n))
        m_visited.assign(std::size_t(n), 0);
    int matched = 0;
    for (int row = 0; row < n; ++row) {
        if (++m_stamp == std::numeric_limits<int>::max()) {
            std::fill(m_visited.begin(), m_visited.end(), 0);
            m_stamp = 1;
        }
        matched += augmentBelow(cost, n, threshold, row) ? 1 : 0;
    }
    return matched;
}

BottleneckMatching BottleneckMatcher::solve(const std::vector<double> &cost, int n)
{
    BottleneckMatching matching;
    matching.bottleneck = bottleneck(cost, n);
    matching.columnOfRow = m_columnOfRow;
    for (int row = 0; row < n; ++row) {
        if (cost[std::size_t(row) * std::size_t(n) + std::size_t(m_columnOfRow[std::size_t(row)])]
            == matching.bottleneck) {
            matching.bottleneckRow = row;
            break;
        }
    }
    return matching;
}

} // namespace swarmtrain::scheduler

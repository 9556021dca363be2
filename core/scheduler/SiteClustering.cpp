#include "SiteClustering.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace swarmtrain::scheduler {

namespace {

int findRoot(std::vector<int> &parent, int x)
{
    while (parent[std::size_t(x)] != x) {
        parent[std::size_t(x)] = parent[std::size_t(parent[std::size_t(x)])];
        x = parent[std::size_t(x)];
    }
    return x;
}

std::vector<std::vector<int>> components(std::vector<int> &parent)
{
    const int n = int(parent.size());
    std::vector<std::vector<int>> byRoot(static_cast<std::size_t>(n));
    for (int d = 0; d < n; ++d)
        byRoot[std::size_t(findRoot(parent, d))].push_back(d);
    std::vector<std::vector<int>> sites;
    for (std::vector<int> &site : byRoot) {
        if (!site.empty())
            sites.push_back(std::move(site));
    }
    std::stable_sort(sites.begin(), sites.end(),
                     [](const std::vector<int> &a, const std::vector<int> &b) { return a.size() > b.size(); });
    return sites;
}

// Sites cut into pieces of at most `length` devices, largest first.
std::vector<std::vector<int>> pieces(const SiteClustering &clustering, int length)
{
    std::vector<std::vector<int>> result;
    for (const std::vector<int> &site : clustering.sites) {
        for (std::size_t start = 0; start < site.size(); start += std::size_t(length)) {
            const std::size_t end = std::min(site.size(), start + std::size_t(length));
            result.emplace_back(site.begin() + std::ptrdiff_t(start), site.begin() + std::ptrdiff_t(end));
        }
    }
    std::stable_sort(result.begin(), result.end(),
                     [](const std::vector<int> &a, const std::vector<int> &b) { return a.size() > b.size(); });
    return result;
}

// Fills `bins` of `capacity` with the pieces: each piece goes whole into the bin `choose` picks
// among those with room, else is split over the emptiest bins. Devices left over are dropped.
template <typename Choose>
std::vector<std::vector<int>> fillBins(const std::vector<std::vector<int>> &parts, int bins, int capacity,
                                       Choose choose)
{
    std::vector<std::vector<int>> filled(static_cast<std::size_t>(bins));
    for (const std::vector<int> &part : parts) {
        const int bin = choose(filled, int(part.size()), capacity);
        if (bin >= 0) {
            filled[std::size_t(bin)].insert(filled[std::size_t(bin)].end(), part.begin(), part.end());
            continue;
        }
        for (const int d : part) {
            const auto emptiest = std::min_element(filled.begin(), filled.end(),
                                                   [](const auto &a, const auto &b) { return a.size() < b.size(); });
            if (int(emptiest->size()) >= capacity)
                break;
            emptiest->push_back(d);
        }
    }
    return filled;
}

} // namespace

std::vector<SiteClustering> findSiteClusterings(const CostModel &model, int maxLevels)
{
    const int n = model.deviceCount();
    std::vector<std::tuple<double, int, int>> edges;
    edges.reserve(std::size_t(n) * std::size_t(std::max(n - 1, 0)) / 2);
    for (int d = 0; d < n; ++d) {
        for (int e = d + 1; e < n; ++e)
            edges.emplace_back(model.pipelineEdge(d, e), d, e);
    }
    std::sort(edges.begin(), edges.end());

    // Kruskal: after all edges of one cost are in, the components are one level of the hierarchy.
    std::vector<int> parent(static_cast<std::size_t>(n));
    std::iota(parent.begin(), parent.end(), 0);
    int count = n;
    struct Level {
        SiteClustering clustering;
        double separation = 0.0;
    };
    std::vector<Level> levels;
    for (std::size_t i = 0; i < edges.size();) {
        const double cost = std::get<0>(edges[i]);
        const int before = count;
        for (; i < edges.size() && std::get<0>(edges[i]) == cost; ++i) {
            const int a = findRoot(parent, std::get<1>(edges[i])), b = findRoot(parent, std::get<2>(edges[i]));
            if (a != b) {
                parent[std::size_t(a)] = b;
                --count;
            }
        }
        if (count == before || count <= 1)
            continue;
        // The next merge's cost over this level's: how far apart these sites are.
        double next = cost;
        for (std::size_t j = i; j < edges.size(); ++j) {
            if (findRoot(parent, std::get<1>(edges[j])) != findRoot(parent, std::get<2>(edges[j]))) {
                next = std::get<0>(edges[j]);
                break;
            }
        }
        levels.push_back({{cost, components(parent)}, next / std::max(cost, 1e-12)});
    }
    std::stable_sort(levels.begin(), levels.end(),
                     [](const Level &a, const Level &b) { return a.separation > b.separation; });
    std::vector<SiteClustering> result;
    for (std::size_t i = 0; i < levels.size() && int(result.size()) < maxLevels; ++i)
        result.push_back(std::move(levels[i].clustering));
    return result;
}

std::vector<std::vector<int>> chainedGroups(const SiteClustering &clustering, int stages, int dataParallel)
{
    const auto emptiestWithRoom = [](const std::vector<std::vector<int>> &rows, int size, int capacity) {
        int best = -1;
        for (int r = 0; r < int(rows.size()); ++r) {
            if (int(rows[std::size_t(r)].size()) + size <= capacity
                && (best < 0 || rows[std::size_t(r)].size() < rows[std::size_t(best)].size()))
                best = r;
        }
        return best;
    };
    const std::vector<std::vector<int>> rows
        = fillBins(pieces(clustering, stages), dataParallel, stages, emptiestWithRoom);
    std::vector<std::vector<int>> groups(static_cast<std::size_t>(stages));
    for (int s = 0; s < stages; ++s) {
        for (const std::vector<int> &row : rows)
            groups[std::size_t(s)].push_back(row[std::size_t(s)]);
    }
    return groups;
}

std::vector<std::vector<int>> packedGroups(const SiteClustering &clustering, int stages, int dataParallel)
{
    // Best fit: the fullest group with room, so groups close early and sites stay whole.
    const auto fullestWithRoom = [](const std::vector<std::vector<int>> &groups, int size, int capacity) {
        int best = -1;
        for (int g = 0; g < int(groups.size()); ++g) {
            if (int(groups[std::size_t(g)].size()) + size <= capacity
                && (best < 0 || groups[std::size_t(g)].size() > groups[std::size_t(best)].size()))
                best = g;
        }
        return best;
    };
    return fillBins(pieces(clustering, dataParallel), stages, dataParallel, fullestWithRoom);
}

} // namespace swarmtrain::scheduler

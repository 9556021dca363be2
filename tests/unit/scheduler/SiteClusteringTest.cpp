#include "SiteClustering.h"
#include "SchedulerTestProblems.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace swarmtrain::scheduler;

namespace {

// The paper's spot scenario in small: 4 instances of 3 GPUs and 6 single-GPU instances.
std::vector<int> spotSites()
{
    std::vector<int> sites;
    for (int instance = 0; instance < 4; ++instance)
        sites.insert(sites.end(), 3, instance);
    for (int single = 0; single < 6; ++single)
        sites.push_back(4 + single);
    return sites;
}

} // namespace

TEST(SiteClusteringTest, FindsTheInstancesAsTheBestSeparatedLevel)
{
    const Problem problem = test::siteProblem(spotSites(), 0.0, 1e10, 0.0, 1e8);
    const CostModel model(problem, 6, 3);
    const std::vector<SiteClustering> levels = findSiteClusterings(model, 4);
    ASSERT_EQ(levels.size(), 1u) << "one level between 'all alone' and 'all together'";
    ASSERT_EQ(levels[0].sites.size(), 10u);
    for (int s = 0; s < 4; ++s)
        EXPECT_EQ(levels[0].sites[std::size_t(s)].size(), 3u) << "largest sites first";
    EXPECT_DOUBLE_EQ(levels[0].threshold, model.pipelineEdge(0, 1));
}

TEST(SiteClusteringTest, ChainedGroupsLineSitesUpAlongThePipelines)
{
    const Problem problem = test::siteProblem(spotSites(), 0.0, 1e10, 0.0, 1e8);
    const CostModel model(problem, 6, 3);
    const SiteClustering clustering = findSiteClusterings(model, 1).at(0);
    const std::vector<std::vector<int>> groups = chainedGroups(clustering, 6, 3);
    ASSERT_EQ(groups.size(), 6u);
    std::set<int> all;
    for (const std::vector<int> &group : groups) {
        EXPECT_EQ(group.size(), 3u);
        all.insert(group.begin(), group.end());
    }
    EXPECT_EQ(all.size(), 18u);
    // Rows (pipelines) 0-2 each get one instance in stages 0-2; stage 3 takes the fourth instance.
    // Neighbouring stages 0 -> 1 -> 2 then match inside instances: the bottleneck is fast.
    EXPECT_DOUBLE_EQ(model.linkSeconds(groups[0], groups[1]), model.pipelineEdge(0, 1));
    EXPECT_DOUBLE_EQ(model.linkSeconds(groups[1], groups[2]), model.pipelineEdge(0, 1));
    for (int g = 0; g < 3; ++g) {
        std::set<std::string> sites;
        for (const int d : groups[std::size_t(g)])
            sites.insert(problem.devices[std::size_t(d)].site);
        EXPECT_EQ(sites.size(), 3u) << "each of the first groups holds one GPU of three instances";
    }
}

TEST(SiteClusteringTest, PackedGroupsKeepSitesTogether)
{
    // Two sites of 6: packed into groups of 3, every group is inside one site.
    const Problem problem = test::siteProblem({0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, 0.001, 1e9, 0.05, 1e8);
    const CostModel model(problem, 4, 3);
    const SiteClustering clustering = findSiteClusterings(model, 1).at(0);
    ASSERT_EQ(clustering.sites.size(), 2u);
    for (const std::vector<int> &group : packedGroups(clustering, 4, 3)) {
        ASSERT_EQ(group.size(), 3u);
        for (const int d : group)
            EXPECT_EQ(d % 2, group[0] % 2);
    }
}

TEST(SiteClusteringTest, LeftoverDevicesAreLeftOutWhenTheGridIsSmaller)
{
    const Problem problem = test::siteProblem({0, 0, 0, 1, 1, 1, 2}, 0.001, 1e9, 0.05, 1e8);
    const CostModel model(problem, 2, 3);
    const SiteClustering clustering = findSiteClusterings(model, 1).at(0);
    for (const auto &groups : {chainedGroups(clustering, 2, 3), packedGroups(clustering, 2, 3)}) {
        ASSERT_EQ(groups.size(), 2u);
        std::set<int> used;
        for (const std::vector<int> &group : groups) {
            EXPECT_EQ(group.size(), 3u);
            used.insert(group.begin(), group.end());
        }
        EXPECT_EQ(used.size(), 6u);
    }
}

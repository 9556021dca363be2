#include "ScheduleService.h"
#include "TestApplication.h"

#include <gtest/gtest.h>

#include <QJsonDocument>
#include <QSignalSpy>

using namespace swarmtrain;

namespace {

PeerRecord peer(const QString &keyId)
{
    PeerRecord p;
    p.keyId = keyId;
    DeviceReport device;
    device.flopsPerSecond = 1e12;
    device.trainingMemoryBytes = 8ll << 30;
    p.deviceJson = QJsonDocument(device.toJson()).toJson(QJsonDocument::Compact);
    return p;
}

// Peers whose first letter is their site: fast inside a site, slow between sites.
LinkMatrix sites(const std::vector<PeerRecord> &peers)
{
    std::vector<QString> ids;
    std::vector<LinkRecord> links;
    for (const PeerRecord &a : peers) {
        ids.push_back(a.keyId);
        for (const PeerRecord &b : peers) {
            if (a.keyId != b.keyId) {
                const bool near = a.keyId.at(0) == b.keyId.at(0);
                links.push_back({a.keyId, b.keyId, near ? 2.0 : 120.0, near ? 1e9 : 1e6, 0});
            }
        }
    }
    return LinkMatrix::build(ids, links, 0);
}

// Narrow and long: a microbatch's activations outweigh a stage's gradients, so pipelines, not
// data-parallel groups, should stay inside a site.
ModelConfig model()
{
    ModelConfig config;
    config.vocabSize = 65;
    config.nLayer = 4;
    config.nEmbd = 32;
    config.blockSize = 256;
    return config;
}

TrainingSettings training()
{
    TrainingSettings settings;
    settings.batchSize = 64;
    return settings;
}

class ScheduleServiceTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { test::application(); }

    ScheduleAnswer update(ScheduleService &service, const std::vector<PeerRecord> &peers, qint64 nowMs)
    {
        QSignalSpy scheduled(&service, &ScheduleService::scheduled);
        service.update(peers, [&](const std::vector<QString> &) { return sites(peers); }, nowMs);
        EXPECT_TRUE(scheduled.wait(60'000));
        return service.latest();
    }
};

} // namespace

TEST_F(ScheduleServiceTest, PlacesTheOnlinePeersAndRepairsThePlacementWhenOneIsReplaced)
{
    ScheduleOptions options;
    options.stages = 2;
    options.seconds = 60; // ends on its offspring limit first, so a busy machine cannot cut it short
    ScheduleService service(model(), training(), options);
    EXPECT_EQ(service.latest().state, QStringLiteral("waiting"));

    const std::vector<PeerRecord> first = {peer(QStringLiteral("a1")), peer(QStringLiteral("a2")),
                                           peer(QStringLiteral("b1")), peer(QStringLiteral("b2"))};
    const ScheduleAnswer placed = update(service, first, 1000);
    ASSERT_EQ(placed.state, QStringLiteral("scheduled")) << placed.why.toStdString();
    EXPECT_EQ(placed.pipelineStages, 2);
    EXPECT_EQ(placed.dataParallel, 2);
    ASSERT_EQ(placed.pipelines.size(), 2u);
    for (const QStringList &pipeline : placed.pipelines)
        EXPECT_EQ(pipeline.at(0).at(0), pipeline.at(1).at(0)) << "each pipeline stays in its site";

    // b2 leaves, b3 joins the same site: the newcomer takes b2's place, nobody else moves.
    const std::vector<PeerRecord> second = {peer(QStringLiteral("a1")), peer(QStringLiteral("a2")),
                                            peer(QStringLiteral("b1")), peer(QStringLiteral("b3"))};
    const ScheduleAnswer repaired = update(service, second, 2000);
    ASSERT_EQ(repaired.state, QStringLiteral("scheduled")) << repaired.why.toStdString();
    EXPECT_EQ(repaired.placedPeers, 1);
    EXPECT_EQ(repaired.movedPeers, 0);
    for (std::size_t stage = 0; stage < 2; ++stage) {
        for (const QString &id : placed.stages[stage]) {
            if (id != QStringLiteral("b2"))
                EXPECT_TRUE(repaired.stages[stage].contains(id)) << id.toStdString() << " kept its stage";
        }
    }
}

TEST_F(ScheduleServiceTest, OnePeerIsNoGrid)
{
    ScheduleService service(model(), training(), {});
    QSignalSpy scheduled(&service, &ScheduleService::scheduled);
    const std::vector<PeerRecord> lone = {peer(QStringLiteral("a1"))};
    service.update(lone, [&](const std::vector<QString> &) { return sites(lone); }, 1000);
    service.waitForDone();
    QCoreApplication::processEvents();
    EXPECT_EQ(scheduled.count(), 0);
    EXPECT_EQ(service.latest().state, QStringLiteral("waiting"));
}

TEST_F(ScheduleServiceTest, SaysWhichLinksAreEstimates)
{
    ScheduleOptions options;
    options.seconds = 60;
    ScheduleService service(model(), training(), options);
    const std::vector<PeerRecord> peers = {peer(QStringLiteral("a1")), peer(QStringLiteral("b1"))};
    QSignalSpy scheduled(&service, &ScheduleService::scheduled);
    // Only a1 -> b1 was measured: b1 -> a1 is estimated from it.
    service.update(peers, [&](const std::vector<QString> &ids) {
        return LinkMatrix::build(ids, {{QStringLiteral("a1"), QStringLiteral("b1"), 10.0, 1e6, 1000}}, 1000);
    }, 1000);
    ASSERT_TRUE(scheduled.wait(60'000));
    const ScheduleAnswer answer = service.latest();
    EXPECT_EQ(answer.linksMeasured, 1);
    EXPECT_EQ(answer.linksEstimated, 1);
    EXPECT_EQ(answer.estimatedLinks, QStringList{QStringLiteral("b1>a1")});
}

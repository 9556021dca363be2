#include "Identity.h"
#include "PeerTransport.h"
#include "PipelineDriver.h"
#include "PipelineStage.h"
#include "StageFrames.h"
#include "StageGradients.h"
#include "StageOptimizer.h"
#include "StagePartition.h"
#include "StageServer.h"
#include "StageWorker.h"
#include "LocalPipeline.h"
#include "TestApplication.h"
#include "TinyGpt.h"

#include <gtest/gtest.h>

#include <QHostAddress>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <semaphore>
#include <set>
#include <utility>

using namespace swarmtrain;

namespace {

// Pipeline-stage mode over real sockets on loopback (issue 17): a trainer driving microbatches
// through stages served by other peers' StageServers, each peer with its own identity and
// PeerTransport, in one process.
constexpr int kStages = 3;
constexpr std::uint64_t kSeed = 9;

using test::onStage;

struct Peer {
    Identity identity = Identity::generate().value();
    std::unique_ptr<PeerTransport> transport;
    QString endpoint;
    QString keyId() const { return identity.keyId(); }
};

class PipelineLoopbackTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        spans = partitionStages(config, kStages).value();
    }

    // A wider model than the default, before any peer is added.
    void useModel(const ModelConfig &wider, MicrobatchShape microbatchShape)
    {
        config = wider;
        shape = microbatchShape;
        spans = partitionStages(config, kStages).value();
    }

    std::unique_ptr<PipelineStage> makeStage(const StageSpan &span) const
    {
        PipelineStageOptions options;
        options.seed = kSeed;
        return PipelineStage::create(config, span, options).value();
    }

    // Replicas of stage 1 that step together, each with its own transport and StageOptimizer;
    // `finished[i]` is how replica i's last step ended (applied, hash).
    struct Replicas {
        std::vector<Peer *> peers;
        std::vector<std::unique_ptr<StageWorker>> workers;
        std::vector<std::unique_ptr<StageOptimizer>> optimizers;
        std::map<std::size_t, std::pair<bool, QString>> finished;
    };
    // Step 0 of `members`, over the step's `microbatches` (round 1, lr 1e-2).
    static StageStepPlan firstStep(const std::vector<Peer *> &members, int microbatches)
    {
        StageStepPlan plan;
        plan.step = 0;
        plan.round = 1;
        plan.microbatches = microbatches;
        plan.lr = 1e-2;
        plan.timeoutMs = 60'000;
        for (const Peer *peer : members)
            plan.members.append(AllReduceMember{peer->keyId(), peer->endpoint, 0, 0});
        return plan;
    }
    void addReplicas(Replicas &r, std::size_t count)
    {
        for (std::size_t i = r.peers.size(); count > 0; ++i, --count) {
            r.peers.push_back(&addPeer());
            r.workers.push_back(std::make_unique<StageWorker>(makeStage(spans[1])));
            r.optimizers.push_back(std::make_unique<StageOptimizer>(*r.peers.back()->transport, r.peers.back()->keyId(), *r.workers.back()));
            connect(r.optimizers.back().get(), &StageOptimizer::stepFinished,
                    [&r, i](quint64, bool applied, const QString &hash, const QString &) { r.finished[i] = {applied, hash}; });
        }
    }

    Peer &addPeer(PeerTransportOptions options = {})
    {
        peers.push_back(std::make_unique<Peer>());
        Peer &peer = *peers.back();
        peer.transport = std::make_unique<PeerTransport>(peer.identity, [this](const QString &keyId) -> std::optional<QByteArray> {
            for (const auto &p : peers) {
                if (p->keyId() == keyId)
                    return p->identity.publicKey();
            }
            return std::nullopt;
        }, options);
        const Result<quint16> port = peer.transport->listen(QHostAddress::LocalHost);
        EXPECT_TRUE(port.ok());
        peer.endpoint = QStringLiteral("127.0.0.1:%1").arg(*port);
        return peer;
    }

    StageServer &addServer(int stage, WirePrecision precision, int maxQueued = StageServerSettings{}.maxQueued,
                           qsizetype statePieceBytes = StageServerSettings{}.statePieceBytes, PeerTransportOptions options = {},
                           Misbehaviour misbehaviour = {})
    {
        Peer &peer = addPeer(options);
        StageServerSettings settings;
        settings.misbehaviour = std::move(misbehaviour);
        settings.statePieceBytes = statePieceBytes;
        settings.stage = stage;
        settings.stageCount = kStages;
        settings.precision = precision;
        settings.maxBatch = 4;
        settings.maxQueued = maxQueued;
        servers.push_back(std::make_unique<StageServer>(*peer.transport, makeStage(spans[std::size_t(stage)]), settings));
        serverPeers.push_back(&peer);
        return *servers.back();
    }

    // A trainer whose hops time out only after a minute: in these tests a retry comes from a
    // failure they stage, never from a machine too busy to answer in a couple of seconds.
    static PipelineDriverSettings patient()
    {
        PipelineDriverSettings settings;
        settings.hops.minTimeout = std::chrono::milliseconds(60'000);
        return settings;
    }

    void makeTrainer(WirePrecision precision, PipelineDriverSettings settings = patient())
    {
        driver.reset();
        losses.clear();
        trainer = &addPeer();
        firstStage = std::make_unique<StageWorker>(makeStage(spans[0]));
        settings.stageCount = kStages;
        settings.precision = precision;
        settings.seed = 3;
        driver = std::make_unique<PipelineDriver>(*trainer->transport, trainer->keyId(), *firstStage, settings);
        connect(driver.get(), &PipelineDriver::microbatchDone, [this](quint64 id, double loss) { losses[id] = loss; });
        connect(driver.get(), &PipelineDriver::microbatchFailed, [](quint64 id, const QString &why) {
            ADD_FAILURE() << "microbatch " << id << " failed: " << why.toStdString();
        });
    }

    // Holds a stage's thread (it computes nothing) until release() or the end of the scope, so
    // that a failed assertion never leaves the thread waiting.
    class HeldStage {
    public:
        explicit HeldStage(StageServer &server) : m_gate(std::make_shared<std::binary_semaphore>(0))
        {
            server.worker().post(&server, [gate = m_gate](PipelineStage &) { gate->acquire(); return 0; }, [](int) {});
        }
        ~HeldStage() { release(); }
        void release()
        {
            if (!std::exchange(m_released, true))
                m_gate->release();
        }

    private:
        std::shared_ptr<std::binary_semaphore> m_gate;
        bool m_released = false;
    };

    static QMetaObject::Connection connect(auto *sender, auto signal, auto slot)
    {
        return QObject::connect(sender, signal, sender, slot);
    }

    // Stage 1 served by peer 0 alone, stage 2 by peer 2: three microbatches run and are
    // confirmed at peer 0; then peer 1 joins stage 1 and the trainer reaches it.
    void confirmThreeAtOnePeerThenAddAnother()
    {
        addServer(1, WirePrecision::Float32);
        addServer(1, WirePrecision::Float32);
        addServer(2, WirePrecision::Float32);
        makeTrainer(WirePrecision::Float32);
        place(1, {0});
        place(2, {2});
        runAll(3);
        ASSERT_TRUE(QTest::qWaitFor([&] { return servers[0]->confirmed() == 3; }, 60'000));
        place(1, {0, 1});
        ASSERT_TRUE(QTest::qWaitFor([&] { return trainer->transport->isConnected(serverPeers[1]->keyId()); }, 30'000));
    }

    // The stage's servers (by index into `servers`) as the driver's placement.
    void place(int stage, const std::vector<std::size_t> &indices)
    {
        QHash<QString, QString> endpoints;
        for (const std::size_t i : indices)
            endpoints.insert(serverPeers[i]->keyId(), serverPeers[i]->endpoint);
        driver->setStagePeers(stage, endpoints);
    }

    Microbatch microbatch(std::uint64_t id) const
    {
        std::mt19937 rng(unsigned(id) * 7 + 1);
        Microbatch batch{id, 0, shape, std::vector<std::int32_t>(shape.tokenCount()), std::vector<std::int32_t>(shape.tokenCount())};
        for (auto *ids : {&batch.tokens, &batch.targets})
            for (std::int32_t &v : *ids)
                v = std::int32_t(rng() % unsigned(config.vocabSize));
        return batch;
    }

    void runAll(std::uint64_t count)
    {
        for (std::uint64_t id = 1; id <= count; ++id)
            driver->start(microbatch(id));
        ASSERT_TRUE(QTest::qWaitFor([&] { return losses.size() == count; }, 120'000))
            << losses.size() << " of " << count << " microbatches done";
    }

    // The one-machine model's gradient sum and losses over microbatches 1..count.
    std::map<std::string, std::vector<float>> reference(std::uint64_t count, std::map<std::uint64_t, double> &refLosses)
    {
        auto whole = makeStage({0, config.nLayer + 1, 0.0});
        for (std::uint64_t id = 1; id <= count; ++id) {
            const Microbatch batch = microbatch(id);
            refLosses[id] = whole->backward(std::to_string(id), {shape, batch.tokens, {}}, {}, batch.targets).value().loss;
            EXPECT_TRUE(whole->confirm(std::to_string(id)));
        }
        return test::gradientsByName(*whole);
    }

    static void addInto(std::map<std::string, std::vector<float>> &total, const std::map<std::string, std::vector<float>> &part)
    {
        for (const auto &[name, values] : part) {
            auto &sum = total[name];
            sum.resize(values.size(), 0.0f);
            for (std::size_t i = 0; i < values.size(); ++i)
                sum[i] += values[i];
        }
    }

    // Every stage's gradient sums added over its replicas (the two embedding copies too), and
    // each stage's confirmed microbatch keys over its replicas.
    std::map<std::string, std::vector<float>> pipelineGradients(std::map<int, std::multiset<std::string>> &keysByStage)
    {
        std::map<std::string, std::vector<float>> total;
        auto collect = [&](StageWorker &worker, int stage) {
            const auto [named, keys] = onStage(worker, [](PipelineStage &s) {
                auto grads = test::gradientsByName(s);
                return std::make_pair(grads, s.confirmedKeys());
            });
            addInto(total, named);
            for (const std::string &key : keys)
                keysByStage[stage].insert(key.substr(key.rfind('/') + 1));
        };
        collect(*firstStage, 0);
        for (std::size_t i = 0; i < servers.size(); ++i) {
            if (servers[i])
                collect(servers[i]->worker(), servers[i]->settings().stage);
        }
        return total;
    }

    static double relativeError(const std::vector<float> &a, const std::vector<float> &b)
    {
        double diff = 0, norm = 0;
        for (std::size_t i = 0; i < b.size(); ++i) {
            diff += (double(a.at(i)) - b[i]) * (double(a.at(i)) - b[i]);
            norm += double(b[i]) * b[i];
        }
        return std::sqrt(diff / norm);
    }

    // Each stage counted microbatches 1..count exactly once, and the gradients added up over the
    // stages are the one machine's to `tolerance`.
    // A microbatch is done once the trainer has sent its verdicts: waits until every stage's
    // servers confirmed `count` of them, so that no gradient is read half summed.
    void waitForConfirmed(std::uint64_t count)
    {
        const auto confirmedAt = [&](int stage) {
            qint64 total = 0;
            for (const auto &server : servers)
                total += server && server->settings().stage == stage ? server->confirmed() : 0;
            return total;
        };
        for (int s = 1; s < kStages; ++s)
            EXPECT_TRUE(QTest::qWaitFor([&] { return confirmedAt(s) >= qint64(count); }, 60'000)) << "stage " << s;
    }

    // The microbatches stage `stage`'s peers (the trainer's own for stage 0) hold confirmed now.
    std::multiset<std::string> confirmedKeys(int stage)
    {
        std::multiset<std::string> keys;
        const auto collect = [&](StageWorker &worker) {
            for (const std::string &key : onStage(worker, [](PipelineStage &s) { return s.confirmedKeys(); }))
                keys.insert(key.substr(key.rfind('/') + 1));
        };
        if (stage == 0)
            collect(*firstStage);
        for (const auto &server : servers) {
            if (server && server->settings().stage == stage)
                collect(server->worker());
        }
        return keys;
    }

    // The largest relative error of any parameter's gradient, added up over the stages, against
    // the one machine's over microbatches 1..count.
    double worstGradientError(std::uint64_t count)
    {
        waitForConfirmed(count);
        std::map<std::uint64_t, double> refLosses;
        const auto expected = reference(count, refLosses);
        std::map<int, std::multiset<std::string>> keys;
        const auto actual = pipelineGradients(keys);
        double worst = 0.0;
        for (const auto &[name, grad] : expected)
            worst = std::max(worst, relativeError(actual.at(name), grad));
        return worst;
    }

    void expectOneMachinesGradients(std::uint64_t count, double tolerance)
    {
        waitForConfirmed(count);
        std::map<std::uint64_t, double> refLosses;
        const auto expected = reference(count, refLosses);
        std::map<int, std::multiset<std::string>> keys;
        const auto actual = pipelineGradients(keys);
        std::multiset<std::string> issued;
        for (std::uint64_t id = 1; id <= count; ++id)
            issued.insert(std::to_string(id));
        for (int s = 0; s < kStages; ++s)
            EXPECT_EQ(keys[s], issued) << "stage " << s << " counted microbatches missing or twice";
        ASSERT_EQ(actual.size(), expected.size());
        for (const auto &[name, grad] : expected)
            EXPECT_LE(relativeError(actual.at(name), grad), tolerance) << name;
        for (const auto &[id, loss] : refLosses)
            EXPECT_NEAR(losses.at(id), loss, 1e-3 * loss) << "microbatch " << id;
    }

    // Resync helpers: a replica stepped once on its own (ahead of a fresh one), its hash, a
    // connection from one peer to another, and a replica's resync outcomes as they come.
    static void stepAlone(StageServer &server)
    {
        onStage(server.worker(), [&](PipelineStage &stage) {
            std::vector<float> mean(std::size_t(stage.parameterCount()), 0.01f);
            return stage.step(mean, 1e-3, 1.0).ok();
        });
    }
    static std::string hashOf(StageServer &server)
    {
        return onStage(server.worker(), [](PipelineStage &s) { return s.hash(); });
    }
    // `peer` answers every stage request with the bytes `reply` makes, after it has set the
    // answer's fields in `piece` (a hostile neighbour's state pieces).
    static void answerStageRequests(Peer &peer, std::function<QByteArray(wire::StageWork &piece)> reply)
    {
        PeerTransport *transport = peer.transport.get();
        QObject::connect(transport, &PeerTransport::frameReceived, transport,
                         [transport, reply = std::move(reply)](const QString &from, const FrameHeader &header, const QByteArray &) {
                             if (header.type() != wire::FRAME_TYPE_STAGE_REQUEST)
                                 return;
                             wire::StageWork piece = header.stage();
                             const QByteArray bytes = reply(piece);
                             (void)transport->send(from, stageHeader(wire::FRAME_TYPE_STAGE_REPLY, piece, bytes.size()), bytes);
                         });
    }
    static void connectPeers(Peer &from, Peer &to)
    {
        ASSERT_TRUE(from.transport->connectToPeer(to.endpoint, to.keyId()).ok());
        ASSERT_TRUE(QTest::qWaitFor([&] { return from.transport->isConnected(to.keyId()); }, 30'000));
    }
    void recordResyncs(StageServer &server)
    {
        QObject::connect(&server, &StageServer::resynced, &server,
                         [this](bool ok, const QString &hashOrWhy) { resyncs.emplace_back(ok, hashOrWhy); });
    }

    ModelConfig config = test::tinyGptConfig(13, 4, 2, 32, 16);
    MicrobatchShape shape{2, 16};
    std::vector<StageSpan> spans;
    std::vector<std::unique_ptr<Peer>> peers;
    std::vector<std::unique_ptr<StageServer>> servers;
    std::vector<Peer *> serverPeers;
    Peer *trainer = nullptr;
    std::unique_ptr<StageWorker> firstStage;
    std::unique_ptr<PipelineDriver> driver;
    std::map<std::uint64_t, double> losses;
    std::vector<std::pair<bool, QString>> resyncs;
};

} // namespace

// Six microbatches at once through 3 stages of 2 peers each, float32 on the wire: every stage
// counts each microbatch once, and the stages' gradients add up to one machine's.
TEST_F(PipelineLoopbackTest, MicrobatchesGiveOneMachinesGradients)
{
    for (int stage = 1; stage < kStages; ++stage) {
        addServer(stage, WirePrecision::Float32);
        addServer(stage, WirePrecision::Float32);
    }
    makeTrainer(WirePrecision::Float32);
    place(1, {0, 1});
    place(2, {2, 3});
    runAll(6);
    expectOneMachinesGradients(6, 1e-5);
    EXPECT_EQ(driver->retries(), 0);
    for (const auto &server : servers)
        EXPECT_EQ(server->offences(trainer->keyId()), 0);
}

// The Llama family through the same three stages: grouped-query attention, and a head of its
// own (no tied embedding shared between the first and last stages).
TEST_F(PipelineLoopbackTest, LlamaMicrobatchesGiveOneMachinesGradients)
{
    for (const bool tied : {true, false}) {
        SCOPED_TRACE(tied ? "tied head" : "untied head");
        servers.clear();
        serverPeers.clear();
        peers.clear();
        useModel(test::tinyLlamaConfig(13, 4, 4, 2, 32, 88, 16, tied), {2, 16});
        for (int stage = 1; stage < kStages; ++stage)
            addServer(stage, WirePrecision::Float32);
        makeTrainer(WirePrecision::Float32);
        place(1, {0});
        place(2, {1});
        runAll(4);
        expectOneMachinesGradients(4, 1e-5);
    }
}

// 8-bit on the wire: the same microbatches, gradients close to one machine's.
TEST_F(PipelineLoopbackTest, EightBitActivationsStayCloseToOneMachine)
{
    for (int stage = 1; stage < kStages; ++stage)
        addServer(stage, WirePrecision::Int8);
    makeTrainer(WirePrecision::Int8);
    place(1, {0});
    place(2, {1});
    runAll(3);
    waitForConfirmed(3);
    std::map<std::uint64_t, double> refLosses;
    const auto expected = reference(3, refLosses);
    std::map<int, std::multiset<std::string>> keys;
    const auto actual = pipelineGradients(keys);
    double dot = 0, a2 = 0, b2 = 0;
    for (const auto &[name, grad] : expected) {
        for (std::size_t i = 0; i < grad.size(); ++i) {
            dot += double(actual.at(name)[i]) * grad[i];
            a2 += double(actual.at(name)[i]) * actual.at(name)[i];
            b2 += double(grad[i]) * grad[i];
        }
    }
    const double cosine = dot / std::sqrt(a2 * b2);
    EXPECT_GE(cosine, 0.99);
    EXPECT_LT(cosine, 1.0 - 1e-9) << "8-bit on the wire cannot be exact";
    std::cout << "pipeline over loopback, 8-bit wire: gradient cosine " << cosine << std::endl;
}

// The wire's cost (issue 17: at most 0.27x float32): the bytes a trainer sends and receives for
// the same microbatches of a 256-wide model, 8-bit against float32, handshakes left out.
TEST_F(PipelineLoopbackTest, EightBitMicrobatchesCostAQuarterOfFloat32)
{
    useModel(test::tinyGptConfig(65, 2, 4, 256, 64), {4, 64});
    std::map<WirePrecision, qint64> bytes;
    for (const WirePrecision precision : {WirePrecision::Float32, WirePrecision::Int8}) {
        const std::size_t first = servers.size();
        addServer(1, precision);
        addServer(2, precision);
        makeTrainer(precision);
        place(1, {first});
        place(2, {first + 1});
        ASSERT_TRUE(QTest::qWaitFor([&] {
            return trainer->transport->isConnected(serverPeers[first]->keyId())
                   && trainer->transport->isConnected(serverPeers[first + 1]->keyId());
        }, 30'000));
        const qint64 before = trainer->transport->bytesSent() + trainer->transport->bytesReceived();
        runAll(3);
        EXPECT_EQ(driver->retries(), 0);
        bytes[precision] = trainer->transport->bytesSent() + trainer->transport->bytesReceived() - before;
    }
    const double ratio = double(bytes[WirePrecision::Int8]) / double(bytes[WirePrecision::Float32]);
    std::cout << "pipeline wire, 3 microbatches of 4 x 64 tokens, 256 wide: float32 " << bytes[WirePrecision::Float32]
              << " bytes, 8-bit " << bytes[WirePrecision::Int8] << " bytes, ratio " << ratio << std::endl;
    EXPECT_LE(ratio, 0.27);
    EXPECT_GE(ratio, 0.2) << "8-bit cannot be cheaper than a byte a value";
}

// A stage peer killed while it holds a microbatch: the hop is retried on the other peer of the
// stage, and each stage still counts every microbatch once.
TEST_F(PipelineLoopbackTest, AKilledStagePeerIsRetriedOnAnother)
{
    addServer(1, WirePrecision::Float32);
    addServer(1, WirePrecision::Float32);
    addServer(2, WirePrecision::Float32);
    makeTrainer(WirePrecision::Float32);
    // The first request to reach peer 0 kills it before it answers.
    Peer *doomed = serverPeers[0];
    bool killed = false;
    QObject::connect(doomed->transport.get(), &PeerTransport::frameReceived, doomed->transport.get(),
                     [&](const QString &, const FrameHeader &header, const QByteArray &) {
                         if (header.type() != wire::FRAME_TYPE_STAGE_REQUEST || killed)
                             return;
                         killed = true;
                         QTimer::singleShot(0, &test::application(), [&] {
                             servers[0].reset();
                             doomed->transport.reset();
                         });
                     });
    place(1, {0});
    place(2, {2});
    ASSERT_TRUE(QTest::qWaitFor([&] { return trainer->transport->isConnected(doomed->keyId()); }, 30'000));
    driver->start(microbatch(1));
    ASSERT_TRUE(QTest::qWaitFor([&] { return killed && !servers[0]; }, 30'000));
    place(1, {0, 1});
    for (std::uint64_t id = 2; id <= 4; ++id)
        driver->start(microbatch(id));
    ASSERT_TRUE(QTest::qWaitFor([&] { return losses.size() == 4; }, 120'000));
    EXPECT_GE(driver->retries(), 1);
    expectOneMachinesGradients(4, 1e-5);
}

// A stage peer killed after it confirmed backwards of the open step: the trainer replays them on
// the other peer of the stage from what it kept, and the step closes with each microbatch counted
// once at every stage.
TEST_F(PipelineLoopbackTest, ConfirmedWorkOfAKilledPeerIsReplayedElsewhere)
{
    ASSERT_NO_FATAL_FAILURE(confirmThreeAtOnePeerThenAddAnother());
    servers[0].reset();
    serverPeers[0]->transport.reset();
    ASSERT_TRUE(QTest::qWaitFor([&] { return driver->replays() == 3 && driver->replaysRunning() == 0; }, 60'000));
    ASSERT_TRUE(driver->closeStep(0).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] {
        return servers[1]->readyForStep(0, {trainer->keyId()}).has_value() && servers[2]->readyForStep(0, {trainer->keyId()}).has_value();
    }, 60'000));
    expectOneMachinesGradients(3, 1e-5);
}

// A stage peer killed after the trainer closed the step, while its stage waits to step: the
// trainer kept the step's microbatches, replays the dead peer's backwards on the other peer of the
// stage and sends that peer its new count, so the stage still counts each microbatch once. Once
// the step is forgotten (its stages step), nothing is replayed any more.
TEST_F(PipelineLoopbackTest, ConfirmedWorkOfAPeerKilledAfterTheCloseIsReplayedAndRecounted)
{
    ASSERT_NO_FATAL_FAILURE(confirmThreeAtOnePeerThenAddAnother());
    std::vector<bool> closesAgreed; // at the surviving peer, in the order they came
    connect(servers[1].get(), &StageServer::trainerClosed,
            [&](quint64, const QString &, bool agrees) { closesAgreed.push_back(agrees); });
    ASSERT_TRUE(driver->closeStep(0).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return closesAgreed.size() == 1; }, 60'000)) << "the close never reached the second peer";
    servers[0].reset();
    serverPeers[0]->transport.reset();
    ASSERT_TRUE(QTest::qWaitFor([&] { return driver->replays() == 3 && driver->replaysRunning() == 0; }, 60'000));
    // A second close, counting the three replayed backwards: it agrees only if it came after them.
    ASSERT_TRUE(QTest::qWaitFor([&] { return closesAgreed.size() == 2; }, 60'000)) << "no new count after the replays";
    EXPECT_EQ(closesAgreed, (std::vector<bool>{true, true}));
    EXPECT_TRUE(servers[1]->readyForStep(0, {trainer->keyId()}));
    expectOneMachinesGradients(3, 1e-5);
}

// A stage peer still connected that the coordinator left out of the closed step (it never said it
// was ready): the trainer takes its confirmed backwards back from it, replays them on the stage's
// other peer, never on it, and sends that peer its new count, so the stage's ready peer holds the
// whole step and the left-out one holds none of it.
TEST_F(PipelineLoopbackTest, ConfirmedWorkOfAPeerLeftOutOfTheStepIsTakenBackAndReplayedElsewhere)
{
    ASSERT_NO_FATAL_FAILURE(confirmThreeAtOnePeerThenAddAnother());
    ASSERT_TRUE(driver->closeStep(0).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return servers[0]->readyForStep(0, {trainer->keyId()}) == std::optional<int>(3); }, 60'000));
    driver->leaveOut(0, serverPeers[0]->keyId());
    driver->leaveOut(0, serverPeers[0]->keyId()); // said again every poll: once is enough
    ASSERT_TRUE(QTest::qWaitFor([&] { return driver->replaysRunning() == 0 && servers[0]->takenBack() == 3; }, 60'000));
    EXPECT_EQ(driver->replays(), 3);
    EXPECT_TRUE(trainer->transport->isConnected(serverPeers[0]->keyId()));
    ASSERT_TRUE(QTest::qWaitFor([&] { return servers[1]->readyForStep(0, {trainer->keyId()}) == std::optional<int>(3); }, 60'000))
        << "the stage's other peer never held the replayed work";
    ASSERT_TRUE(QTest::qWaitFor([&] { return servers[0]->readyForStep(0, {trainer->keyId()}) == std::optional<int>(0); }, 60'000))
        << "it still counts the step's work it gave back";
    expectOneMachinesGradients(3, 1e-5);
}

// A stage peer the trainer lost touch with, but that lived on: its confirmed backwards were
// replayed elsewhere, so they are taken back from it when it is reachable again, before the
// step closes; it then agrees with the trainer's count and nothing counts twice.
TEST_F(PipelineLoopbackTest, ReplayedWorkIsTakenBackFromAPeerThatReturns)
{
    ASSERT_NO_FATAL_FAILURE(confirmThreeAtOnePeerThenAddAnother());
    const QString cutOff = serverPeers[0]->keyId();
    trainer->transport->disconnectPeer(cutOff, QStringLiteral("a network blip (test)"));
    // The driver dials it again by itself, and takes back what it replayed elsewhere.
    ASSERT_TRUE(QTest::qWaitFor([&] { return driver->replays() == 3 && driver->replaysRunning() == 0; }, 60'000));
    ASSERT_TRUE(QTest::qWaitFor([&] { return servers[0]->takenBack() == 3; }, 60'000));
    ASSERT_TRUE(driver->closeStep(0).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] {
        return std::all_of(servers.begin(), servers.end(),
                           [&](const auto &server) { return server->readyForStep(0, {trainer->keyId()}).has_value(); });
    }, 60'000));
    expectOneMachinesGradients(3, 1e-5);
}

// A peer that answers after the trainer gave up on it: the hop went to another peer, and the late
// answer's gradient is taken back out, so nothing counts twice.
TEST_F(PipelineLoopbackTest, ALateAnswerIsCancelled)
{
    addServer(1, WirePrecision::Float32);
    StageServer &stalled = addServer(2, WirePrecision::Float32);
    addServer(2, WirePrecision::Float32);
    PipelineDriverSettings settings;
    settings.hops.minTimeout = std::chrono::milliseconds(200);
    settings.hops.maxTimeout = std::chrono::milliseconds(500);
    makeTrainer(WirePrecision::Float32, settings);
    place(1, {0});
    place(2, {1});
    // The last stage's only peer computes nothing until released: the trainer's first backward
    // hop times out on it.
    HeldStage held(stalled);
    QStringList retriedOn;
    connect(driver.get(), &PipelineDriver::hopRetried,
            [&](quint64, int, const QString &peer, const QString &) { retriedOn.append(peer); });
    driver->start(microbatch(1));
    ASSERT_TRUE(QTest::qWaitFor([&] { return retriedOn.contains(serverPeers[1]->keyId()); }, 60'000))
        << "the hop held by the stalled peer was never given up on";
    place(2, {1, 2});
    driver->start(microbatch(2));
    ASSERT_TRUE(QTest::qWaitFor([&] { return losses.size() == 2; }, 120'000));
    held.release();
    // The stalled peer runs the backward it was sent, then the trainer's cancel: it answered,
    // and nothing of it stays counted or pending.
    ASSERT_TRUE(QTest::qWaitFor([&] { return stalled.served() >= 1 && stalled.worker().queued() == 0; }, 60'000));
    const auto [pending, confirmed] =
        onStage(stalled.worker(), [](PipelineStage &s) { return std::make_pair(s.pendingCount(), s.confirmedCount()); });
    EXPECT_EQ(pending, 0);
    EXPECT_EQ(confirmed, 0);
    expectOneMachinesGradients(2, 1e-5);
}

// Hostile requests to a stage server: each is refused and counted before anything is computed,
// and the sender is banned at the third; an honest trainer is served all along.
TEST_F(PipelineLoopbackTest, MalformedRequestsAreRefusedCountedAndBanned)
{
    StageServer &server = addServer(1, WirePrecision::Float32);
    addServer(2, WirePrecision::Float32);
    Peer &hostile = addPeer();
    std::vector<std::string> refusals;
    QObject::connect(hostile.transport.get(), &PeerTransport::frameReceived, hostile.transport.get(),
                     [&](const QString &, const FrameHeader &header, const QByteArray &) {
                         if (header.type() == wire::FRAME_TYPE_STAGE_REFUSED)
                             refusals.push_back(header.stage().refusal());
                     });
    const QString target = serverPeers[0]->keyId();
    ASSERT_TRUE(hostile.transport->connectToPeer(serverPeers[0]->endpoint, target).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return hostile.transport->isConnected(target); }, 30'000));

    const std::size_t count = shape.tokenCount() * std::size_t(config.nEmbd);
    wire::StageWork work;
    work.set_microbatch(1);
    work.set_stage(1);
    work.set_pass(wire::StageWork::PASS_FORWARD);
    work.set_batch(shape.batch);
    work.set_tokens(shape.tokens);
    work.set_precision(std::uint32_t(WirePrecision::Float32));
    auto send = [&](const wire::StageWork &w, const QByteArray &payload) {
        ASSERT_TRUE(hostile.transport->send(target, stageHeader(wire::FRAME_TYPE_STAGE_REQUEST, w, payload.size()), payload).ok());
    };
    // Another stage: refused, not an offence (a stale placement).
    wire::StageWork otherStage = work;
    otherStage.set_stage(2);
    send(otherStage, encodeWire(std::vector<float>(count, 0.5f), WirePrecision::Float32).value());
    ASSERT_TRUE(QTest::qWaitFor([&] { return refusals.size() == 1; }, 30'000));
    EXPECT_EQ(server.offences(hostile.keyId()), 0);

    // A NaN among the activations (crafted by hand: the encoder refuses to write one).
    QByteArray nan = encodeWire(std::vector<float>(count, 0.5f), WirePrecision::Float32).value();
    const float bad = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(nan.data() + kActivationHeaderBytes + 4 * 100, &bad, 4);
    send(work, nan);
    // A microbatch far over the server's batch limit, with a payload to match its claim.
    wire::StageWork huge = work;
    huge.set_batch(1000);
    send(huge, QByteArray(16, '\0'));
    ASSERT_TRUE(QTest::qWaitFor([&] { return server.isBanned(hostile.keyId()) || refusals.size() >= 3; }, 30'000));
    // The payload one byte short.
    send(work, nan.left(nan.size() - 1));
    ASSERT_TRUE(QTest::qWaitFor([&] { return server.isBanned(hostile.keyId()); }, 30'000));
    EXPECT_EQ(server.offences(hostile.keyId()), 3);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !hostile.transport->isConnected(target); }, 30'000));
    EXPECT_EQ(server.served(), 0) << "nothing hostile was computed on";

    // An honest trainer is served as before.
    makeTrainer(WirePrecision::Float32);
    place(1, {0});
    place(2, {1});
    runAll(2);
    EXPECT_EQ(server.offences(trainer->keyId()), 0);
    EXPECT_EQ(server.served(), 4);
}

// A trainer's validation batch (StageEvaluator): an EVALUATE goes to the last stage only, carries
// the input and the targets, is answered with the loss and leaves nothing held there; anything
// else is an offence.
TEST_F(PipelineLoopbackTest, EvaluationsAreForTheLastStageOnlyAndHoldNothing)
{
    StageServer &middle = addServer(1, WirePrecision::Float32);
    StageServer &last = addServer(2, WirePrecision::Float32);
    Peer &peer = addPeer();
    std::vector<std::pair<int, double>> answers; // frame type, loss
    QObject::connect(peer.transport.get(), &PeerTransport::frameReceived, peer.transport.get(),
                     [&](const QString &, const FrameHeader &header, const QByteArray &) {
                         answers.emplace_back(int(header.type()), header.stage().loss());
                     });
    for (const auto &server : serverPeers) {
        ASSERT_TRUE(peer.transport->connectToPeer(server->endpoint, server->keyId()).ok());
        ASSERT_TRUE(QTest::qWaitFor([&] { return peer.transport->isConnected(server->keyId()); }, 30'000));
    }
    const std::size_t count = shape.tokenCount() * std::size_t(config.nEmbd);
    const QByteArray input = encodeWire(std::vector<float>(count, 0.25f), WirePrecision::Float32).value();
    const QByteArray targets = encodeTargets(std::vector<std::int32_t>(shape.tokenCount(), 1));
    wire::StageWork work;
    work.set_microbatch(std::uint64_t(1) << 62);
    work.set_pass(wire::StageWork::PASS_EVALUATE);
    work.set_batch(shape.batch);
    work.set_tokens(shape.tokens);
    work.set_precision(std::uint32_t(WirePrecision::Float32));
    auto send = [&](int stage, const QByteArray &payload) {
        work.set_stage(std::uint32_t(stage));
        ASSERT_TRUE(peer.transport->send(serverPeers[std::size_t(stage - 1)]->keyId(),
                                         stageHeader(wire::FRAME_TYPE_STAGE_REQUEST, work, payload.size()), payload)
                        .ok());
    };
    send(2, input + targets);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !answers.empty(); }, 30'000));
    EXPECT_EQ(answers[0].first, int(wire::FRAME_TYPE_STAGE_REPLY));
    EXPECT_TRUE(std::isfinite(answers[0].second) && answers[0].second > 0);
    EXPECT_EQ(test::onStage(last.worker(), [](PipelineStage &stage) { return stage.pendingCount() + stage.confirmedCount(); }), 0);
    // Before the last stage, and one byte short at it: offences both.
    send(1, input + targets);
    send(2, (input + targets).chopped(1));
    ASSERT_TRUE(QTest::qWaitFor([&] { return middle.offences(peer.keyId()) == 1 && last.offences(peer.keyId()) == 1; }, 30'000));
    EXPECT_EQ(middle.served(), 0);
}

// A close is the sender's word about its own microbatches only: one that claims more than the
// stage holds of it leaves the stage not ready for that sender, and no sender's closes can push
// out another's.
TEST_F(PipelineLoopbackTest, AFalseCloseBindsOnlyItsSender)
{
    StageServer &server = addServer(1, WirePrecision::Float32);
    addServer(2, WirePrecision::Float32);
    makeTrainer(WirePrecision::Float32);
    place(1, {0});
    place(2, {1});
    runAll(2);
    ASSERT_TRUE(driver->closeStep(0).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return server.readyForStep(0, {trainer->keyId()}).has_value(); }, 60'000));

    Peer &hostile = addPeer();
    const QString target = serverPeers[0]->keyId();
    ASSERT_TRUE(hostile.transport->connectToPeer(serverPeers[0]->endpoint, target).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return hostile.transport->isConnected(target); }, 30'000));
    int closes = 0;
    QObject::connect(&server, &StageServer::trainerClosed, &server, [&] { ++closes; });
    for (const quint64 step : {quint64(0), quint64(1), quint64(2), quint64(3), quint64(4), quint64(5)}) {
        wire::StageWork close;
        close.set_step(step);
        close.set_close(true);
        close.set_confirmed(2);
        ASSERT_TRUE(hostile.transport->send(target, stageHeader(wire::FRAME_TYPE_STAGE_VERDICT, close), {}).ok());
    }
    ASSERT_TRUE(QTest::qWaitFor([&] { return closes == 6; }, 30'000));
    EXPECT_FALSE(server.readyForStep(5, {hostile.keyId()})) << "it holds nothing of the sender's";
    EXPECT_FALSE(server.readyForStep(0, {trainer->keyId(), hostile.keyId()}));
    EXPECT_EQ(server.readyForStep(0, {trainer->keyId()}), std::optional<int>(2)) << "the trainer's two microbatches";
}

// A stage peer whose answers are garbage (the wrong size, or not finite): the trainer retries the
// hop elsewhere, stops using that peer at the third bad answer, and the microbatches complete.
TEST_F(PipelineLoopbackTest, AStagePeerThatAnswersGarbageIsRetriedThenDropped)
{
    addServer(1, WirePrecision::Float32);
    addServer(2, WirePrecision::Float32);
    Peer &liar = addPeer();
    QObject::connect(liar.transport.get(), &PeerTransport::frameReceived, liar.transport.get(),
                     [&](const QString &from, const FrameHeader &header, const QByteArray &payload) {
                         if (header.type() != wire::FRAME_TYPE_STAGE_REQUEST)
                             return;
                         // Answers with half its input: the wrong size.
                         const QByteArray answer = payload.left(payload.size() / 2 - 4);
                         (void)liar.transport->send(from, stageHeader(wire::FRAME_TYPE_STAGE_REPLY, header.stage(), answer.size()), answer);
                     });
    serverPeers.push_back(&liar);
    makeTrainer(WirePrecision::Float32);
    place(1, {2});
    place(2, {1});
    ASSERT_TRUE(QTest::qWaitFor([&] { return trainer->transport->isConnected(liar.keyId()); }, 30'000));
    for (std::uint64_t id = 1; id <= 3; ++id)
        driver->start(microbatch(id));
    ASSERT_TRUE(QTest::qWaitFor([&] { return driver->isBanned(liar.keyId()); }, 60'000));
    place(1, {0, 2});
    ASSERT_TRUE(QTest::qWaitFor([&] { return losses.size() == 3; }, 120'000));
    EXPECT_EQ(driver->hopsServed(liar.keyId()), 0);
    expectOneMachinesGradients(3, 1e-5);
}

// Issue 43: a stage peer whose answers are well-formed but wrong (gradients scaled by -4,
// activations zeroed, noise of the answer's size). Stage 1 has two honest peers and the liar,
// stage 2 one honest peer; the trainer cross-checks a share of hops. The liar is caught, every
// microbatch that used an answer of its runs again, and it is dropped after three catches: the
// stages' gradients are still one machine's, and no honest peer is caught. With no cross-checks
// the same liar's answers go into the gradients unseen, unless the coordinator named it a suspect
// (another trainer caught it): then each of its answers is checked.
namespace {

struct Lie {
    const char *name;
    std::function<void(std::vector<float> &, bool backward)> change;
};

std::vector<Lie> stageLies()
{
    return {
        {"gradients x -4",
         [](std::vector<float> &values, bool backward) {
             if (backward)
                 for (float &v : values)
                     v *= -4.0f;
         }},
        {"zeroed activations",
         [](std::vector<float> &values, bool backward) {
             if (!backward)
                 std::fill(values.begin(), values.end(), 0.0f);
         }},
        {"noise",
         [rng = std::make_shared<std::mt19937>(5)](std::vector<float> &values, bool) {
             double sum = 0;
             for (const float v : values)
                 sum += double(v) * v;
             std::normal_distribution<float> noise(0.0f, float(std::sqrt(sum / double(values.size()))));
             for (float &v : values)
                 v = noise(*rng);
         }},
    };
}

} // namespace

TEST_F(PipelineLoopbackTest, AStagePeerWhoseAnswersAreWrongIsCaughtByCrossChecksAndItsWorkRunAgain)
{
    for (const Lie &lie : stageLies()) {
        for (const auto &[share, suspect] : {std::pair(PipelineDriverSettings{}.crossCheckShare, false), std::pair(0.0, false),
                                             std::pair(0.0, true)}) {
            SCOPED_TRACE(std::string(lie.name) + (share > 0 ? ", cross-checked" : suspect ? ", a suspect" : ", no cross-checks"));
            driver.reset();
            servers.clear();
            serverPeers.clear();
            peers.clear();
            addServer(1, WirePrecision::Float32);
            addServer(1, WirePrecision::Float32);
            addServer(1, WirePrecision::Float32, StageServerSettings{}.maxQueued, StageServerSettings{}.statePieceBytes, {},
                      Misbehaviour{.stageAnswer = lie.change});
            addServer(2, WirePrecision::Float32);
            PipelineDriverSettings settings = patient();
            settings.crossCheckShare = share;
            makeTrainer(WirePrecision::Float32, settings);
            place(1, {0, 1, 2});
            place(2, {3});
            const QString liar = serverPeers[2]->keyId();
            if (suspect)
                driver->setSuspects({liar});
            ASSERT_TRUE(QTest::qWaitFor([&] { return trainer->transport->isConnected(liar); }, 30'000));
            // Waves of 6 microbatches until the liar is dropped (cross-checked) or for 4 waves.
            std::uint64_t count = 0;
            for (int wave = 0; wave < (share > 0 || suspect ? 60 : 4) && !driver->isBanned(liar); ++wave) {
                for (int i = 0; i < 6; ++i)
                    driver->start(microbatch(++count));
                ASSERT_TRUE(QTest::qWaitFor(
                    [&] { return losses.size() == count && driver->inFlight() == 0 && driver->replaysRunning() == 0; }, 120'000))
                    << losses.size() << " of " << count << " microbatches done";
            }
            // A peer the trainer dropped never hears its step close, and sits the step out: what it
            // holds counts nowhere (its confirmed work was taken back and run elsewhere).
            if (driver->isBanned(liar))
                servers[2].reset();
            // The trainer's verdicts have reached the stages: each holds the latest run of every
            // microbatch, once.
            std::multiset<std::string> latest;
            for (std::uint64_t id = 1; id <= count; ++id)
                latest.insert(std::to_string(driver->wireIdOf(id)));
            for (int s = 0; s < kStages; ++s)
                EXPECT_TRUE(QTest::qWaitFor([&] { return confirmedKeys(s) == latest; }, 20'000))
                    << "stage " << s << " holds " << ::testing::PrintToString(confirmedKeys(s)) << ", not "
                    << ::testing::PrintToString(latest);
            const double error = worstGradientError(count);
            std::cout << "ATTACK stage peer answering " << lie.name << ", cross-check share " << share
                      << (suspect ? ", a suspect" : "") << ": " << count
                      << " microbatches, " << driver->crossChecks() << " hops checked, caught " << driver->caught(liar)
                      << " times, " << driver->restarts() << " microbatches run again, dropped "
                      << (driver->isBanned(liar) ? "yes" : "no") << ", gradient error " << error << std::endl;
            if (share > 0 || suspect) {
                EXPECT_TRUE(driver->isBanned(liar));
                EXPECT_LE(error, 1e-5);
                EXPECT_EQ(driver->caught(serverPeers[0]->keyId()) + driver->caught(serverPeers[1]->keyId()), 0);
                EXPECT_FALSE(driver->isBanned(serverPeers[0]->keyId()) || driver->isBanned(serverPeers[1]->keyId()));
            } else {
                EXPECT_GT(error, 0.01) << "the liar's answers should have spoiled the gradients";
            }
        }
    }
}

// Training in pipeline-stage mode: a trainer and 3 stages (two peers in stages 1 and 2), steps of
// 4 microbatches, each step's gradients averaged among the replicas of a stage (stage 0 with the
// last stage, for the tied embedding) and applied: the replicas of every stage stay equal after
// every step, the two copies of the tied embedding too, and the loss of a learnable sequence falls.
// Replicas of each stage take the same steps and the loss falls, for nanoGPT's GPT and for the
// Llama family with a tied and with an untied head.
namespace {

void replicasStepTogetherAndTheLossFalls(const ModelConfig &config, MicrobatchShape shape)
{
    test::LocalPipeline::Settings settings;
    settings.config = config;
    settings.stages = kStages;
    settings.peersPerStage = 2;
    settings.seed = kSeed;
    settings.lr = 1e-2;
    auto pipeline = test::LocalPipeline::create(settings).value();

    constexpr int kSteps = 8, kMicrobatches = 4;
    std::vector<double> stepLoss;
    std::mt19937 rng(17);
    for (int step = 0; step < kSteps; ++step) {
        std::vector<Microbatch> batches;
        for (int i = 0; i < kMicrobatches; ++i) {
            // A learnable sequence: each token is the one before plus one.
            Microbatch batch{std::uint64_t(i + 1), 0, shape, {}, {}};
            for (int b = 0; b < shape.batch; ++b) {
                const int start = int(rng() % unsigned(config.vocabSize));
                for (int t = 0; t < shape.tokens; ++t) {
                    batch.tokens.push_back((start + t) % config.vocabSize);
                    batch.targets.push_back((start + t + 1) % config.vocabSize);
                }
            }
            batches.push_back(std::move(batch));
        }
        const Result<double> loss = pipeline->step({batches});
        ASSERT_TRUE(loss.ok()) << loss.error().message;
        stepLoss.push_back(*loss);
        for (const auto &[stage, hashes] : pipeline->hashes()) {
            EXPECT_EQ(hashes.size(), stage == 0 ? 1 : 2);
            EXPECT_EQ(hashes.count(hashes.front()), hashes.size()) << "stage " << stage << "'s replicas differ after step " << step;
        }
        for (const auto &peer : pipeline->peers()) {
            EXPECT_TRUE(peer->optimizer->lastOutcome().rejectedSenders.isEmpty()) << "a member's piece was refused in step " << step;
            EXPECT_TRUE(peer->optimizer->lastOutcome().skippedRanges.empty()) << "a range was skipped in step " << step;
        }
    }
    // The tied embedding's two copies took the same steps: still equal, bit for bit.
    const std::string tied = config.tiedEmbeddingName();
    const auto embeddingOf = [&](StageWorker &worker) {
        return onStage(worker, [&](PipelineStage &s) {
            const std::vector<float> values = s.parameters();
            std::int64_t offset = 0;
            for (const auto &[name, count] : s.parameterLayout()) {
                if (name == tied)
                    return std::vector<float>(values.begin() + offset, values.begin() + offset + count);
                offset += count;
            }
            return std::vector<float>{};
        });
    };
    if (!tied.empty()) {
        const std::vector<float> first = embeddingOf(pipeline->trainers().front()->worker());
        ASSERT_FALSE(first.empty());
        for (auto *last : pipeline->ofStage(kStages - 1))
            EXPECT_EQ(first, embeddingOf(last->worker()));
    }
    std::cout << modelFamilyName(config.family) << (tied.empty() ? " (untied)" : "")
              << " pipeline training, mean microbatch loss by step:";
    for (const double loss : stepLoss)
        std::cout << ' ' << loss;
    std::cout << std::endl;
    EXPECT_LT(stepLoss.back(), 0.7 * stepLoss.front());
}

} // namespace

TEST_F(PipelineLoopbackTest, ReplicasStepTogetherAndTheLossFalls)
{
    replicasStepTogetherAndTheLossFalls(config, shape);
    replicasStepTogetherAndTheLossFalls(test::tinyLlamaConfig(13, 4, 2, 1, 32, 88, 16, true), shape);
    replicasStepTogetherAndTheLossFalls(test::tinyLlamaConfig(13, 4, 2, 2, 32, 88, 16, false), shape);
}

// A replica resyncs from a neighbour of its stage over the transport and then equals it; asking
// again at once is refused as busy, and a stranger's garbage answer changes nothing.
TEST_F(PipelineLoopbackTest, AReplicaResyncsFromANeighbour)
{
    StageServer &ahead = addServer(1, WirePrecision::Float32);
    StageServer &behind = addServer(1, WirePrecision::Float32);
    // The neighbour has stepped once on its own; the replica has not.
    stepAlone(ahead);
    ASSERT_NE(hashOf(ahead), hashOf(behind));
    ASSERT_NO_FATAL_FAILURE(connectPeers(*serverPeers[1], *serverPeers[0]));

    recordResyncs(behind);
    behind.resyncFrom(serverPeers[0]->keyId());
    ASSERT_TRUE(QTest::qWaitFor([&] { return resyncs.size() == 1; }, 60'000));
    ASSERT_TRUE(resyncs[0].first) << resyncs[0].second.toStdString();
    EXPECT_EQ(resyncs[0].second.toStdString(), hashOf(ahead));
    EXPECT_EQ(hashOf(behind), hashOf(ahead));
    EXPECT_EQ(onStage(behind.worker(), [](PipelineStage &s) { return s.stepCount(); }), 1);

    behind.resyncFrom(serverPeers[0]->keyId());
    ASSERT_TRUE(QTest::qWaitFor([&] { return resyncs.size() == 2; }, 60'000));
    EXPECT_FALSE(resyncs[1].first);
    EXPECT_TRUE(resyncs[1].second.contains(QStringLiteral("busy"))) << resyncs[1].second.toStdString();

    // A peer that answers state requests with a state one byte short: refused before it is read.
    Peer &liar = addPeer();
    const std::int64_t count = onStage(ahead.worker(), [](PipelineStage &s) { return s.parameterCount(); });
    QObject::connect(liar.transport.get(), &PeerTransport::frameReceived, liar.transport.get(),
                     [&](const QString &from, const FrameHeader &header, const QByteArray &) {
                         if (header.type() != wire::FRAME_TYPE_STAGE_REQUEST)
                             return;
                         const QByteArray answer(qsizetype(PipelineStage::stateSize(count)) - 1, '\0');
                         (void)liar.transport->send(from, stageHeader(wire::FRAME_TYPE_STAGE_REPLY, header.stage(), answer.size()), answer);
                     });
    ASSERT_NO_FATAL_FAILURE(connectPeers(*serverPeers[1], liar));
    const std::string before = hashOf(behind);
    behind.resyncFrom(liar.keyId());
    ASSERT_TRUE(QTest::qWaitFor([&] { return resyncs.size() == 3; }, 60'000));
    EXPECT_FALSE(resyncs[2].first);
    EXPECT_EQ(hashOf(behind), before);
}

// A stage peer at capacity refuses as busy: the trainer does not back off from it, and takes the
// hop to another peer as soon as there is one.
TEST_F(PipelineLoopbackTest, ABusyPeerIsPassedOverWithoutBackingOff)
{
    StageServer &small = addServer(1, WirePrecision::Float32, 1);
    addServer(1, WirePrecision::Float32);
    addServer(2, WirePrecision::Float32);
    makeTrainer(WirePrecision::Float32);
    place(1, {0});
    place(2, {2});
    ASSERT_TRUE(QTest::qWaitFor([&] { return trainer->transport->isConnected(serverPeers[0]->keyId()); }, 30'000));
    // Peer 0 takes one request at a time, and its stage thread is held until released.
    HeldStage held(small);
    driver->start(microbatch(1));
    ASSERT_TRUE(QTest::qWaitFor([&] { return driver->busyRefusals() >= 1; }, 60'000));
    EXPECT_FALSE(driver->chooser(1).backingOff(serverPeers[0]->keyId().toStdString(), std::chrono::steady_clock::now()))
        << "a busy peer is not backed off from";
    EXPECT_EQ(driver->retries(), 0) << "a busy refusal is not a failure";
    place(1, {0, 1});
    for (std::uint64_t id = 2; id <= 4; ++id)
        driver->start(microbatch(id));
    ASSERT_TRUE(QTest::qWaitFor([&] { return losses.size() == 4; }, 120'000));
    held.release();
    expectOneMachinesGradients(4, 1e-5);
}

// A state larger than the connection's write buffer goes in pieces as the buffer drains, and the
// replica takes it whole. Pieces from a neighbour that skips ahead or overfills the state are
// refused, and leave the replica as it was.
TEST_F(PipelineLoopbackTest, AStateLargerThanTheWriteBufferGoesInPieces)
{
    PeerTransportOptions small;
    small.maxWriteBufferBytes = 32 << 10;
    constexpr qsizetype kPiece = 8 << 10;
    StageServer &ahead = addServer(1, WirePrecision::Float32, StageServerSettings{}.maxQueued, kPiece, small);
    StageServer &behind = addServer(1, WirePrecision::Float32, StageServerSettings{}.maxQueued, kPiece, small);
    const std::int64_t count = onStage(ahead.worker(), [](PipelineStage &s) { return s.parameterCount(); });
    const std::size_t stateBytes = PipelineStage::stateSize(count);
    ASSERT_GT(stateBytes, std::size_t(4 * small.maxWriteBufferBytes)) << "the state must not fit the write buffer";
    stepAlone(ahead);
    ASSERT_NO_FATAL_FAILURE(connectPeers(*serverPeers[1], *serverPeers[0]));
    int pieces = 0;
    QObject::connect(serverPeers[1]->transport.get(), &PeerTransport::frameReceived, serverPeers[1]->transport.get(),
                     [&](const QString &, const FrameHeader &header, const QByteArray &) {
                         pieces += header.type() == wire::FRAME_TYPE_STAGE_REPLY;
                     });
    recordResyncs(behind);
    behind.resyncFrom(serverPeers[0]->keyId());
    ASSERT_TRUE(QTest::qWaitFor([&] { return resyncs.size() == 1; }, 60'000));
    ASSERT_TRUE(resyncs[0].first) << resyncs[0].second.toStdString();
    EXPECT_EQ(hashOf(behind), hashOf(ahead));
    EXPECT_EQ(pieces, int((stateBytes + kPiece - 1) / kPiece));

    // A liar: its first answer starts past the state's beginning, its second overfills the state.
    Peer &liar = addPeer();
    int asked = 0;
    answerStageRequests(liar, [&](wire::StageWork &piece) {
        piece.set_state_size(stateBytes);
        piece.set_state_offset(++asked == 1 ? kPiece : 0);
        return QByteArray(asked == 1 ? kPiece : qsizetype(stateBytes) + 1, '\x7f');
    });
    ASSERT_NO_FATAL_FAILURE(connectPeers(*serverPeers[1], liar));
    const std::string before = hashOf(behind);
    for (std::size_t attempt = 2; attempt <= 3; ++attempt) {
        behind.resyncFrom(liar.keyId());
        ASSERT_TRUE(QTest::qWaitFor([&] { return resyncs.size() == attempt; }, 60'000));
        EXPECT_FALSE(resyncs.back().first);
        EXPECT_TRUE(resyncs.back().second.contains(QStringLiteral("a piece of"))) << resyncs.back().second.toStdString();
    }
    EXPECT_EQ(hashOf(behind), before);
}

// A neighbour that sends one piece of the state and then nothing, while it stays connected: the
// resync ends as failed at its deadline, and the replica is as it was.
TEST_F(PipelineLoopbackTest, ANeighbourThatStallsHalfwayEndsTheResyncAtItsDeadline)
{
    StageServerSettings settings;
    settings.stage = 1;
    settings.stageCount = kStages;
    settings.precision = WirePrecision::Float32;
    settings.resyncBaseMs = 500;
    settings.resyncMinBytesPerSecond = 1e12;
    Peer &self = addPeer();
    StageServer behind(*self.transport, makeStage(spans[1]), settings);
    const std::size_t stateBytes = PipelineStage::stateSize(onStage(behind.worker(), [](PipelineStage &s) { return s.parameterCount(); }));
    Peer &staller = addPeer();
    answerStageRequests(staller, [&](wire::StageWork &piece) {
        piece.set_state_size(stateBytes);
        return QByteArray(64, '\0');
    });
    ASSERT_NO_FATAL_FAILURE(connectPeers(self, staller));
    const std::string before = hashOf(behind);
    recordResyncs(behind);
    behind.resyncFrom(staller.keyId());
    ASSERT_TRUE(QTest::qWaitFor([&] { return resyncs.size() == 1; }, 60'000));
    EXPECT_FALSE(resyncs[0].first);
    EXPECT_TRUE(resyncs[0].second.contains(QStringLiteral("64 bytes of the state, then stalled"))) << resyncs[0].second.toStdString();
    EXPECT_TRUE(self.transport->isConnected(staller.keyId()));
    EXPECT_EQ(hashOf(behind), before);
}

// A replica that sat a step out (its optimizer last ran round 1) and was told the swarm's next
// round holds its group's early frames of that round, two rounds on, instead of refusing them and
// cutting the neighbour off (which left each side skipping the other's range: replicas apart).
TEST_F(PipelineLoopbackTest, AReplicaThatSatAStepOutHoldsItsGroupsFramesOfTheNextRound)
{
    Peer &a = addPeer();
    Peer &b = addPeer();
    StageWorker workerA(makeStage(spans[1]));
    StageWorker workerB(makeStage(spans[1]));
    StageOptimizer optimizerA(*a.transport, a.keyId(), workerA);
    StageOptimizer optimizerB(*b.transport, b.keyId(), workerB);
    std::map<StageOptimizer *, std::vector<std::pair<bool, QString>>> finished;
    for (StageOptimizer *o : {&optimizerA, &optimizerB})
        connect(o, &StageOptimizer::stepFinished,
                [&finished, o](quint64, bool applied, const QString &hash, const QString &) { finished[o].emplace_back(applied, hash); });
    const auto planOf = [&](std::uint64_t step, std::vector<Peer *> group) {
        StageStepPlan plan;
        plan.step = step;
        plan.round = step + 1;
        plan.microbatches = 1;
        plan.lr = 1e-2;
        plan.timeoutMs = 60'000;
        for (Peer *peer : group)
            plan.members.append(AllReduceMember{peer->keyId(), peer->endpoint, 0, 0});
        return plan;
    };
    ASSERT_TRUE(optimizerA.start(planOf(0, {&a, &b})).ok());
    ASSERT_TRUE(optimizerB.start(planOf(0, {&a, &b})).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished[&optimizerA].size() == 1 && finished[&optimizerB].size() == 1; }, 60'000));
    // Step 1 (round 2): a alone; b takes a's state afterwards, as a resynced replica does.
    ASSERT_TRUE(optimizerA.start(planOf(1, {&a})).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished[&optimizerA].size() == 2; }, 60'000));
    const std::vector<std::byte> state = onStage(workerA, [](PipelineStage &s) { return s.exportState(); });
    ASSERT_TRUE(onStage(workerB, [&](PipelineStage &s) { return s.importState(state).ok(); }));

    // Step 2 (round 3): a starts first, and its frames reach b before b starts.
    optimizerB.expectRound(3);
    const qint64 before = b.transport->bytesReceived();
    ASSERT_TRUE(optimizerA.start(planOf(2, {&a, &b})).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return b.transport->bytesReceived() > before; }, 60'000));
    QCoreApplication::processEvents(); // b handles what came before it starts
    ASSERT_TRUE(b.transport->isConnected(a.keyId())) << "b refused a's early frame and cut it off";
    ASSERT_TRUE(optimizerB.start(planOf(2, {&a, &b})).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished[&optimizerA].size() == 3 && finished[&optimizerB].size() == 2; }, 60'000));
    EXPECT_TRUE(finished[&optimizerA].back().first && finished[&optimizerB].back().first);
    EXPECT_EQ(finished[&optimizerA].back().second, finished[&optimizerB].back().second) << "the replicas ended apart";
    EXPECT_TRUE(optimizerB.lastOutcome().skippedRanges.empty());
}

// A lying owner in a stage's all-reduce (it hands back a constant for its range): the range's
// checker recomputes the average and disagrees, the third replica, the range's referee, confirms
// the checker's average, and every replica applies that one instead: the lie never reaches the
// stage, no range is lost, and the replicas stay equal.
TEST_F(PipelineLoopbackTest, ALyingOwnersRangeInAStagesAllReduceIsRedoneByEveryReplica)
{
    Replicas replicas;
    addReplicas(replicas, 3);
    auto &[group, workers, optimizers, finished] = replicas;
    const std::size_t width = shape.tokenCount() * std::size_t(config.nEmbd);
    for (std::size_t i = 0; i < 3; ++i) {
        std::vector<float> input(width, 0.1f * float(i + 1)), grad(width, 0.01f);
        const std::string key = "t/0/" + std::to_string(i + 1);
        ASSERT_TRUE(onStage(*workers[i], [&](PipelineStage &s) { return s.backward(key, {shape, {}, input}, grad).ok() && s.confirm(key); }));
    }
    const Peer &liar = *group[0];
    Misbehaviour lie;
    lie.ownerAverage = [](std::vector<float> &average) { std::fill(average.begin(), average.end(), 0.5f); };
    optimizers[0]->setMisbehaviour(lie);
    const StageStepPlan plan = firstStep(group, 3);
    for (auto &optimizer : optimizers)
        ASSERT_TRUE(optimizer->start(plan).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished.size() == 3; }, 60'000));

    const std::int64_t count = onStage(*workers[1], [](PipelineStage &s) { return s.parameterCount(); });
    const QList<AllReduceMember> ranges = withEqualRanges(plan.members, count);
    const auto liarsRange = std::find_if(ranges.begin(), ranges.end(), [&](const AllReduceMember &m) { return m.keyId == liar.keyId(); });
    ASSERT_NE(liarsRange, ranges.end());
    for (std::size_t i = 1; i < 3; ++i) {
        SCOPED_TRACE("honest replica " + std::to_string(i));
        EXPECT_TRUE(finished[i].first);
        EXPECT_EQ(finished[i].second, finished[0].second) << "the replicas ended apart";
        const AllReduceOutcome &outcome = optimizers[i]->lastOutcome();
        EXPECT_TRUE(outcome.skippedRanges.empty());
        ASSERT_EQ(outcome.redoneRanges.size(), 1u);
        EXPECT_EQ(outcome.redoneRanges[0], std::make_pair(liarsRange->begin, liarsRange->end));
        EXPECT_EQ(outcome.average, optimizers[0]->lastOutcome().average);
        bool lieApplied = true, redone = false;
        for (std::int64_t k = liarsRange->begin; k < liarsRange->end; ++k) {
            lieApplied = lieApplied && std::abs(outcome.average[std::size_t(k)] - 0.5f) < 1e-3f;
            redone = redone || outcome.average[std::size_t(k)] != 0.0f;
        }
        EXPECT_FALSE(lieApplied) << "the liar's constant was applied";
        EXPECT_TRUE(redone) << "the liar's range was left out";
        // Its checker and its referee, the two honest replicas, both report it.
        EXPECT_TRUE(outcome.disputed.contains(liar.keyId()));
    }
}

// A replica that vanishes during its stage's all-reduce takes its share of the step's work with
// it. On a step's first attempt (requireComplete) the survivors apply nothing: their states and
// gradient sums stay as they were. Once the vanished replica's microbatch is replayed on a
// survivor (as the trainer does), a second attempt among the two applies the mean over all three
// microbatches, and the two end equal.
TEST_F(PipelineLoopbackTest, AStageStepThatLostAReplicasWorkAppliesNothingAndIsRedoneWithItReplayed)
{
    Replicas replicas;
    addReplicas(replicas, 3);
    auto &[group, workers, optimizers, finished] = replicas;
    const std::size_t width = shape.tokenCount() * std::size_t(config.nEmbd);
    const auto backward = [&](StageWorker &worker, std::size_t microbatch) {
        const std::vector<float> input(width, 0.1f * float(microbatch + 1)), grad(width, 0.01f * float(microbatch + 1));
        const std::string key = "t/0/" + std::to_string(microbatch + 1);
        return onStage(worker, [&](PipelineStage &s) { return s.backward(key, {shape, {}, input}, grad).ok() && s.confirm(key); });
    };
    StageWorker reference(makeStage(spans[1])); // one peer holding all three microbatches
    for (std::size_t i = 0; i < 3; ++i) {
        ASSERT_TRUE(backward(*workers[i], i));
        ASSERT_TRUE(backward(reference, i));
    }
    const std::vector<float> exactSum = onStage(reference, [](PipelineStage &s) { return s.gradientSum(); });
    const auto hashOfStage = [&](std::size_t i) { return onStage(*workers[i], [](PipelineStage &s) { return s.hash(); }); };
    // The replica that vanishes is the one with the largest key id, which both others dial: it
    // takes their connections, sends nothing and is gone (a peer killed as the step began).
    std::size_t dead = 0;
    for (std::size_t i = 1; i < 3; ++i) {
        if (group[i]->keyId() > group[dead]->keyId())
            dead = i;
    }
    std::vector<std::size_t> alive;
    for (std::size_t i = 0; i < 3; ++i) {
        if (i != dead)
            alive.push_back(i);
    }
    const std::string before = hashOfStage(alive[0]);
    ASSERT_EQ(hashOfStage(alive[1]), before);
    const QString gone = group[dead]->keyId();
    StageStepPlan plan = firstStep(group, 3);
    plan.requireComplete = true;
    for (const std::size_t i : alive)
        ASSERT_TRUE(optimizers[i]->start(plan).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] {
        return std::all_of(alive.begin(), alive.end(), [&](std::size_t i) { return group[i]->transport->isConnected(gone); });
    }, 30'000));
    optimizers[dead].reset();
    group[dead]->transport.reset();
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished.size() == 2; }, 30'000)) << "the survivors waited for the vanished replica";
    for (const std::size_t i : alive) {
        SCOPED_TRACE("survivor " + std::to_string(i));
        EXPECT_FALSE(finished[i].first) << "a step without the vanished replica's work was applied";
        EXPECT_TRUE(optimizers[i]->lastStepIncomplete());
        EXPECT_EQ(optimizers[i]->lastOutcome().missingWork, QStringList{gone});
        EXPECT_EQ(hashOfStage(i), before);
    }

    // The trainer replays the vanished replica's microbatch on a survivor; the step's second
    // attempt runs among the two.
    ASSERT_TRUE(backward(*workers[alive[0]], dead));
    finished.clear();
    plan = firstStep({group[alive[0]], group[alive[1]]}, 3);
    plan.round = 2;
    plan.requireComplete = true;
    for (const std::size_t i : alive)
        ASSERT_TRUE(optimizers[i]->start(plan).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished.size() == 2; }, 60'000));
    ASSERT_TRUE(finished[alive[0]].first && finished[alive[1]].first);
    EXPECT_EQ(finished[alive[0]].second, finished[alive[1]].second) << "the replicas ended apart";
    EXPECT_NE(finished[alive[0]].second.toStdString(), before);
    const AllReduceOutcome &outcome = optimizers[alive[0]]->lastOutcome();
    EXPECT_TRUE(outcome.missingWork.isEmpty());
    ASSERT_EQ(outcome.average.size(), exactSum.size());
    double dot = 0.0, a2 = 0.0, b2 = 0.0;
    for (std::size_t k = 0; k < exactSum.size(); ++k) {
        const double exact = exactSum[k] / 3.0;
        dot += exact * outcome.average[k];
        a2 += exact * exact;
        b2 += double(outcome.average[k]) * outcome.average[k];
    }
    EXPECT_GE(dot / std::sqrt(a2 * b2), 0.999) << "the applied mean is not the mean over the step's three microbatches";
    EXPECT_NEAR(std::sqrt(b2 / a2), 1.0, 0.02) << "the applied mean's scale is off: a microbatch lost or counted twice";
}

#pragma once

// A pipeline-stage swarm in one process, over real sockets on loopback (issue 17): trainers
// running stage 0 and driving microbatches, stage servers for stages 1..S-1, each peer with its
// own identity, PeerTransport and StageOptimizer, stepping as the swarm does (close, then each
// stage group's all-reduce and step). For tests and benchmarks; it waits with QTest::qWaitFor, so
// the caller needs a QCoreApplication.

#include "Identity.h"
#include "PeerTransport.h"
#include "PipelineDriver.h"
#include "PipelineStage.h"
#include "StageOptimizer.h"
#include "StagePartition.h"
#include "StageServer.h"
#include "StageWorker.h"

#include <QHostAddress>
#include <QTest>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace swarmtrain::test {

// Runs `work` on a stage's thread and waits for its result.
template <typename Work>
auto onStage(StageWorker &worker, Work work)
{
    std::optional<decltype(work(std::declval<PipelineStage &>()))> result;
    worker.post(&worker, work, [&](const auto &value) { result = value; });
    (void)QTest::qWaitFor([&] { return result.has_value(); }, 600'000);
    return std::move(*result);
}

class LocalPipeline {
public:
    struct Settings {
        ModelConfig config;
        int stages = 2;
        int trainers = 1;
        int peersPerStage = 1; // for stages 1..S-1
        WirePrecision precision = WirePrecision::Int8;
        std::uint64_t seed = 1;
        double lr = 1e-3;
        double gradClip = 1.0;
        int timeoutMs = 120'000;
        // Where a trainer dials a stage peer listening at `endpoint` (a link emulator's relay);
        // unset: the endpoint itself.
        std::function<QString(const QString &endpoint)> route;
        // Trainer i uses only peer i of every stage (needs trainers == peersPerStage): the fixed
        // pipelines that stochastic wiring is measured against.
        bool fixedWiring = false;
        // The trainers' share of cross-checked hops (PipelineDriverSettings).
        double crossCheckShare = PipelineDriverSettings{}.crossCheckShare;
    };

    struct Peer {
        Identity identity = Identity::generate().value();
        std::unique_ptr<PeerTransport> transport;
        QString endpoint;
        int stage = 0;
        std::unique_ptr<StageWorker> firstStage; // trainers
        std::unique_ptr<PipelineDriver> driver;  // trainers
        std::unique_ptr<StageServer> server;     // stage peers
        std::unique_ptr<StageOptimizer> optimizer;
        std::map<std::uint64_t, double> losses;  // trainers: microbatch -> loss
        QString keyId() const { return identity.keyId(); }
        bool alive() const { return transport != nullptr; }
        StageWorker &worker() { return firstStage ? *firstStage : server->worker(); }
    };

    static Result<std::unique_ptr<LocalPipeline>> create(const Settings &settings)
    {
        Result<std::vector<StageSpan>> spans = partitionStages(settings.config, settings.stages);
        if (!spans)
            return spans.error();
        auto pipeline = std::unique_ptr<LocalPipeline>(new LocalPipeline(settings, std::move(*spans)));
        if (Result<void> built = pipeline->build(); !built)
            return built.error();
        return pipeline;
    }

    const std::vector<std::unique_ptr<Peer>> &peers() const { return m_peers; }
    std::vector<Peer *> trainers() const { return ofStage(0); }
    // The live peers of `stage`.
    std::vector<Peer *> ofStage(int stage) const
    {
        std::vector<Peer *> found;
        for (const auto &peer : m_peers) {
            if (peer->stage == stage && peer->alive())
                found.push_back(peer.get());
        }
        return found;
    }

    // A stage peer gone at once, as a killed process goes: its sockets close, its work is lost.
    void kill(Peer &peer)
    {
        peer.optimizer.reset();
        peer.server.reset();
        peer.transport.reset();
        (void)placeAll();
    }

    // A killed stage peer back with the same key: a fresh process that takes its stage's state
    // from a live neighbour, then is placed again.
    Result<void> restart(Peer &peer)
    {
        const std::vector<Peer *> neighbours = ofStage(peer.stage);
        if (peer.alive() || peer.stage == 0 || neighbours.empty())
            return makeError("only a killed stage peer with a live neighbour restarts");
        if (Result<void> started = startPeer(peer); !started)
            return started;
        Peer &neighbour = *neighbours.front();
        if (Result<void> dialed = peer.transport->connectToPeer(neighbour.endpoint, neighbour.keyId()); !dialed)
            return dialed;
        if (!QTest::qWaitFor([&] { return peer.transport->isConnected(neighbour.keyId()); }, m_settings.timeoutMs))
            return makeError("the restarted peer cannot reach its neighbour");
        std::optional<std::pair<bool, QString>> outcome;
        QObject::connect(peer.server.get(), &StageServer::resynced, peer.server.get(),
                         [&outcome](bool ok, const QString &hashOrWhy) { outcome = std::make_pair(ok, hashOrWhy); });
        peer.server->resyncFrom(neighbour.keyId());
        if (!QTest::qWaitFor([&] { return outcome.has_value(); }, m_settings.timeoutMs) || !outcome->first)
            return makeError("the restarted peer could not resync: " + (outcome ? outcome->second.toStdString() : std::string("no answer")));
        return placeAll();
    }

    // One optimizer step: trainer i drives batchesByTrainer[i]; every trainer closes the step;
    // every stage group averages and steps. The microbatches' mean loss.
    Result<double> step(const std::vector<std::vector<Microbatch>> &batchesByTrainer)
    {
        const std::vector<Peer *> trainerPeers = trainers();
        int total = 0;
        for (std::size_t t = 0; t < trainerPeers.size(); ++t) {
            trainerPeers[t]->losses.clear();
            for (Microbatch batch : batchesByTrainer.at(t)) {
                batch.step = m_step;
                trainerPeers[t]->driver->start(std::move(batch));
                ++total;
            }
        }
        if (!QTest::qWaitFor([&] { return doneCount() == total; }, m_settings.timeoutMs))
            return makeError("the step's microbatches did not finish in time");
        for (Peer *trainer : trainerPeers) {
            if (Result<void> closed = trainer->driver->closeStep(m_step); !closed)
                return closed.error();
        }
        // A stage peer hears the close of every trainer that uses it.
        const auto trainersOf = [&](const Peer &peer) {
            const std::vector<Peer *> stagePeers = ofStage(peer.stage);
            const auto index = std::size_t(std::find(stagePeers.begin(), stagePeers.end(), &peer) - stagePeers.begin());
            QStringList ids;
            for (std::size_t t = 0; t < trainerPeers.size(); ++t) {
                if (uses(t, index))
                    ids.append(trainerPeers[t]->keyId());
            }
            return ids;
        };
        const bool ready = QTest::qWaitFor([&] {
            return std::all_of(m_peers.begin(), m_peers.end(), [&](const auto &peer) {
                return !peer->server || peer->server->readyForStep(m_step, trainersOf(*peer));
            });
        }, m_settings.timeoutMs);
        if (!ready)
            return makeError("a stage peer's counts disagree with the trainers'");
        if (Result<void> stepped = runOptimizers(total); !stepped)
            return stepped.error();
        double loss = 0;
        for (Peer *trainer : trainerPeers) {
            for (const auto &[id, value] : trainer->losses)
                loss += value / total;
        }
        ++m_step;
        return loss;
    }

    // The mean loss of `batches` through trainer 0's stage 0 and the first peer of every other
    // stage, computing no gradient.
    Result<double> evaluate(const std::vector<Microbatch> &batches)
    {
        double sum = 0;
        for (const Microbatch &batch : batches) {
            std::vector<float> activations;
            for (int s = 0; s < m_settings.stages; ++s) {
                StageWorker &worker = ofStage(s).front()->worker();
                const bool last = s == m_settings.stages - 1;
                const StageInput input{batch.shape, s == 0 ? std::span<const std::int32_t>(batch.tokens) : std::span<const std::int32_t>{},
                                       activations};
                if (last) {
                    Result<double> loss = onStage(worker, [&](PipelineStage &stage) { return stage.evaluate(input, batch.targets); });
                    if (!loss)
                        return loss.error();
                    sum += *loss;
                } else {
                    Result<std::vector<float>> output = onStage(worker, [&](PipelineStage &stage) { return stage.forward(input); });
                    if (!output)
                        return output.error();
                    activations = std::move(*output);
                }
            }
        }
        return sum / double(batches.size());
    }

    // Each stage's replicas' parameter hashes after the last step, by stage.
    std::map<int, QStringList> hashes() const { return m_hashes; }

private:
    LocalPipeline(Settings settings, std::vector<StageSpan> spans)
        : m_settings(std::move(settings))
        , m_spans(std::move(spans))
    {
    }

    std::unique_ptr<PipelineStage> makeStage(int stage) const
    {
        PipelineStageOptions options;
        options.seed = m_settings.seed;
        return PipelineStage::create(m_settings.config, m_spans[std::size_t(stage)], options).value();
    }

    Result<void> build()
    {
        for (int t = 0; t < m_settings.trainers; ++t)
            m_peers.emplace_back(std::make_unique<Peer>())->stage = 0;
        for (int s = 1; s < m_settings.stages; ++s) {
            for (int i = 0; i < m_settings.peersPerStage; ++i)
                m_peers.emplace_back(std::make_unique<Peer>())->stage = s;
        }
        for (const auto &peer : m_peers) {
            if (Result<void> started = startPeer(*peer); !started)
                return started;
        }
        return placeAll();
    }

    // A peer's transport (listening), its stage (fresh from the seed) and its optimizer.
    Result<void> startPeer(Peer &peer)
    {
        peer.transport = std::make_unique<PeerTransport>(peer.identity, [this](const QString &keyId) -> std::optional<QByteArray> {
            for (const auto &p : m_peers) {
                if (p->keyId() == keyId)
                    return p->identity.publicKey();
            }
            return std::nullopt;
        });
        const Result<quint16> port = peer.transport->listen(QHostAddress::LocalHost);
        if (!port)
            return port.error();
        peer.endpoint = QStringLiteral("127.0.0.1:%1").arg(*port);
        if (peer.stage == 0) {
            peer.firstStage = std::make_unique<StageWorker>(makeStage(0));
            PipelineDriverSettings settings;
            settings.stageCount = m_settings.stages;
            settings.precision = m_settings.precision;
            settings.seed = m_settings.seed + std::uint64_t(m_peers.size());
            settings.crossCheckShare = m_settings.crossCheckShare;
            peer.driver = std::make_unique<PipelineDriver>(*peer.transport, peer.keyId(), *peer.firstStage, settings);
            Peer *self = &peer;
            QObject::connect(peer.driver.get(), &PipelineDriver::microbatchDone, peer.driver.get(),
                             [self](quint64 id, double loss) { self->losses[id] = loss; });
        } else {
            StageServerSettings settings;
            settings.stage = peer.stage;
            settings.stageCount = m_settings.stages;
            settings.precision = m_settings.precision;
            settings.maxBatch = 1 << 16;
            // Every microbatch of a step may be in flight at once: none is refused as busy.
            settings.maxQueued = 1 << 10;
            peer.server = std::make_unique<StageServer>(*peer.transport, makeStage(peer.stage), settings);
        }
        peer.optimizer = std::make_unique<StageOptimizer>(*peer.transport, peer.keyId(), peer.worker());
        return {};
    }

    // Every trainer's placement: the live peers of each stage it uses; waits until it reaches them.
    Result<void> placeAll()
    {
        const std::vector<Peer *> trainerPeers = trainers();
        for (std::size_t t = 0; t < trainerPeers.size(); ++t) {
            for (int s = 1; s < m_settings.stages; ++s) {
                QHash<QString, QString> endpoints;
                const std::vector<Peer *> stagePeers = ofStage(s);
                for (std::size_t i = 0; i < stagePeers.size(); ++i) {
                    if (uses(t, i))
                        endpoints.insert(stagePeers[i]->keyId(),
                                         m_settings.route ? m_settings.route(stagePeers[i]->endpoint) : stagePeers[i]->endpoint);
                }
                trainerPeers[t]->driver->setStagePeers(s, endpoints);
            }
        }
        const bool connected = QTest::qWaitFor([&] {
            for (std::size_t t = 0; t < trainerPeers.size(); ++t) {
                for (int s = 1; s < m_settings.stages; ++s) {
                    const std::vector<Peer *> stagePeers = ofStage(s);
                    for (std::size_t i = 0; i < stagePeers.size(); ++i) {
                        if (uses(t, i) && !trainerPeers[t]->transport->isConnected(stagePeers[i]->keyId()))
                            return false;
                    }
                }
            }
            return true;
        }, m_settings.timeoutMs);
        return connected ? Result<void>() : makeError("the trainers could not reach every stage peer");
    }

    // Whether trainer `trainer` uses peer `index` of a stage.
    bool uses(std::size_t trainer, std::size_t index) const { return !m_settings.fixedWiring || trainer == index; }

    int doneCount() const
    {
        int done = 0;
        for (Peer *trainer : trainers())
            done += int(trainer->losses.size());
        return done;
    }

    // Stage 0 steps with the last stage (the tied embedding), each middle stage on its own.
    Result<void> runOptimizers(int microbatches)
    {
        const int last = m_settings.stages - 1;
        const auto membersOf = [&](std::initializer_list<int> stages) {
            QList<AllReduceMember> members;
            for (int s : stages) {
                for (Peer *peer : ofStage(s))
                    members.append(AllReduceMember{peer->keyId(), peer->endpoint, 0, 0});
            }
            return members;
        };
        std::map<Peer *, std::optional<std::pair<bool, QString>>> outcomes;
        std::vector<QMetaObject::Connection> connections;
        for (const auto &peer : m_peers) {
            if (!peer->alive())
                continue;
            StageStepPlan plan;
            plan.step = m_step;
            plan.round = m_step + 1;
            plan.microbatches = microbatches;
            plan.lr = m_settings.lr;
            plan.gradClip = m_settings.gradClip;
            plan.timeoutMs = m_settings.timeoutMs;
            plan.placeInPipeline(m_settings.config, m_spans, peer->stage);
            plan.members = plan.part == StepPart::Own ? membersOf({peer->stage}) : membersOf({0, last});
            Peer *self = peer.get();
            outcomes[self];
            connections.push_back(QObject::connect(
                peer->optimizer.get(), &StageOptimizer::stepFinished, peer->optimizer.get(),
                [&outcomes, self](quint64, bool applied, const QString &hash, const QString &why) {
                    outcomes[self] = std::make_pair(applied, applied ? hash : why);
                }));
            if (peer->driver) // as PipelinePlane does: the step's stages step now
                peer->driver->forgetSteps(m_step);
            if (Result<void> started = peer->optimizer->start(plan); !started)
                return started.error();
        }
        const bool finished = QTest::qWaitFor([&] {
            return std::all_of(outcomes.begin(), outcomes.end(), [](const auto &o) { return o.second.has_value(); });
        }, m_settings.timeoutMs);
        for (const auto &c : connections)
            QObject::disconnect(c);
        if (!finished)
            return makeError("a stage step did not finish in time");
        m_hashes.clear();
        for (const auto &[peer, outcome] : outcomes) {
            if (!outcome->first)
                return makeError("a stage step failed: " + outcome->second.toStdString());
            m_hashes[peer->stage].append(outcome->second);
        }
        return {};
    }

    Settings m_settings;
    std::vector<StageSpan> m_spans;
    std::vector<std::unique_ptr<Peer>> m_peers;
    std::map<int, QStringList> m_hashes;
    std::uint64_t m_step = 0;
};

} // namespace swarmtrain::test

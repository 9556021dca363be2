#include "PipelinePlane.h"

#include "CryptoLifetime.h"
#include "Identity.h"
#include "NetworkThread.h"
#include "PeerTransport.h"
#include "PipelineMessages.h"
#include "PipelineStage.h"
#include "StageEvaluator.h"
#include "StageFrames.h"
#include "StageServer.h"
#include "StageWorker.h"

#include <QLoggingCategory>

#include <future>

namespace swarmtrain {

Q_LOGGING_CATEGORY(lcPipelinePlane, "swarmtrain.pipeline")

PipelinePlane::PipelinePlane(const Identity &identity)
    : m_thread(std::make_unique<NetworkThread>(QStringLiteral("swarmtrain pipeline")))
    , m_self(identity.keyId())
{
    PeerKeyRegistry registry = [this](const QString &keyId) -> std::optional<QByteArray> {
        std::lock_guard lock(m_keysMutex);
        if (const auto found = m_keys.constFind(keyId); found != m_keys.constEnd())
            return *found;
        return std::nullopt;
    };
    onNetworkThread([&] { m_transport = new PeerTransport(identity, std::move(registry)); });
}

PipelinePlane::~PipelinePlane()
{
    try {
        onNetworkThread([this] {
            teardownStage();
            delete m_transport;
            releaseThreadCrypto(); // the sealed streams' (CryptoLifetime.h)
        });
    } catch (const std::exception &e) {
        qCWarning(lcPipelinePlane) << "closing the pipeline plane:" << e.what();
    }
    m_thread->stop();
}

void PipelinePlane::onNetworkThread(const std::function<void()> &work) const { m_thread->run(work); }

Result<quint16> PipelinePlane::listen(const QHostAddress &address, quint16 port)
{
    Result<quint16> result = makeError("not started");
    onNetworkThread([&] { result = m_transport->listen(address, port); });
    return result;
}

void PipelinePlane::setKnownPeers(const QHash<QString, QByteArray> &publicKeys)
{
    std::lock_guard lock(m_keysMutex);
    m_keys = publicKeys;
}

void PipelinePlane::teardownStage()
{
    // Users of the stage before the stage: the evaluator and the driver post to its worker.
    delete m_evaluator;
    delete m_driver;
    delete m_optimizer;
    delete m_server;
    m_evaluator = nullptr;
    m_driver = nullptr;
    m_optimizer = nullptr;
    m_server = nullptr;
    m_driving.clear();
    m_droppedOthersFor = {};
    m_state = PipelinePlaneState{};
}

Result<void> PipelinePlane::setStage(int index, std::unique_ptr<PipelineStage> stage, int stageCount, WirePrecision precision,
                                     int maxBatch)
{
    if (!stage || index < 0 || index >= stageCount)
        return makeError("no such pipeline stage");
    onNetworkThread([&] {
        teardownStage();
        StageServerSettings settings;
        settings.stage = index;
        settings.stageCount = stageCount;
        settings.precision = precision;
        settings.maxBatch = maxBatch;
        // Every trainer may have its whole share of a step in flight here.
        settings.maxQueued = 64;
        settings.misbehaviour = m_misbehaviour;
        m_server = new StageServer(*m_transport, std::move(stage), settings);
        m_state.stage = index;
        QObject::connect(m_server, &StageServer::requestServed, m_server, [this](const QString &, bool backward) {
            m_state.served += backward;
        });
        QObject::connect(m_server, &StageServer::resynced, m_server, [this](bool ok, const QString &hashOrWhy) {
            if (ok)
                m_state.hash = hashOrWhy;
            m_state.resyncOutcome = std::make_pair(ok, hashOrWhy);
            refreshHash(); // the step count
        });
        m_optimizer = new StageOptimizer(*m_transport, m_self, m_server->worker());
        m_optimizer->setMisbehaviour(m_misbehaviour);
        QObject::connect(m_optimizer, &StageOptimizer::stepFinished, m_optimizer,
                         [this](quint64, bool applied, const QString &hash, const QString &why) {
                             if (applied) { // before the outcome is read: the report carries the new hash
                                 m_state.hash = hash;
                                 ++m_state.stateSteps;
                             }
                             m_state.stepDisputed = m_optimizer->lastOutcome().disputed;
                             m_state.stepIncomplete = m_optimizer->lastStepIncomplete();
                             m_state.stepOutcome = std::make_pair(applied, applied ? hash : why);
                         });
        if (index == 0) {
            PipelineDriverSettings driverSettings;
            driverSettings.stageCount = stageCount;
            driverSettings.precision = precision;
            driverSettings.crossCheckShare = m_crossCheckShare;
            m_driver = new PipelineDriver(*m_transport, m_self, m_server->worker(), driverSettings);
            // Only the open step's microbatches count (one of a step the swarm gave up on may still finish).
            QObject::connect(m_driver, &PipelineDriver::microbatchDone, m_driver, [this](quint64 id, double loss) {
                ++m_state.served;
                if (m_driving.erase(id) == 0)
                    return;
                ++m_state.done;
                m_state.lossSum += loss;
            });
            QObject::connect(m_driver, &PipelineDriver::peerCaught, m_driver, [this](const QString &peer, int, const QString &) {
                if (!m_state.wrongAnswerers.contains(peer))
                    m_state.wrongAnswerers.append(peer);
            });
            QObject::connect(m_driver, &PipelineDriver::microbatchFailed, m_driver, [this](quint64 id, const QString &why) {
                m_state.failed += int(m_driving.erase(id));
                qCWarning(lcPipelinePlane).noquote() << "microbatch" << id << "failed:" << why;
            });
            m_evaluator = new StageEvaluator(*m_transport, m_server->worker(), stageCount, precision);
        }
        refreshHash();
    });
    return {};
}

void PipelinePlane::clearStage()
{
    onNetworkThread([this] { teardownStage(); });
}

void PipelinePlane::setStagePeers(const std::vector<QHash<QString, QString>> &byStage)
{
    onNetworkThread([&] {
        if (!m_driver)
            return;
        for (std::size_t s = 1; s < byStage.size(); ++s)
            m_driver->setStagePeers(int(s), byStage[s]);
        m_stagePeers = byStage;
    });
}

void PipelinePlane::drive(std::vector<Microbatch> batches)
{
    onNetworkThread([&] {
        m_state.done = m_state.failed = 0;
        m_state.lossSum = 0.0;
        if (!m_driver)
            return;
        m_driving.clear();
        if (!batches.empty() && batches.front().step > 0)
            m_driver->forgetSteps(batches.front().step - 1);
        for (Microbatch &batch : batches) {
            m_driving.insert(batch.id);
            m_driver->start(std::move(batch));
        }
    });
}

Result<void> PipelinePlane::closeStep(std::uint64_t step)
{
    Result<void> result = makeError("this peer drives no microbatches");
    onNetworkThread([&] {
        if (m_driver)
            result = m_driver->closeStep(step);
    });
    return result;
}

void PipelinePlane::leaveOut(std::uint64_t step, const QStringList &peerKeyIds)
{
    onNetworkThread([&] {
        if (!m_driver)
            return;
        for (const QString &peer : peerKeyIds)
            m_driver->leaveOut(step, peer);
    });
}

std::optional<int> PipelinePlane::readyForStep(std::uint64_t step, const QStringList &trainers)
{
    std::optional<int> ready;
    onNetworkThread([&] {
        if (!m_server)
            return;
        ready = m_server->readyForStep(step, trainers);
        // Asked again every poll while the step closes: the drop below is needed once a step.
        if (!ready || m_droppedOthersFor == std::pair(step, trainers))
            return;
        m_droppedOthersFor = {step, trainers};
        // A trainer that did not close (it went away mid-step) counts for nothing here.
        std::vector<std::string> prefixes;
        for (const QString &trainer : trainers)
            prefixes.push_back(stepKeyPrefix(trainer, step));
        m_server->worker().post(
            m_server,
            [prefixes](PipelineStage &stage) {
                stage.cancelIf([&](const std::string &key) {
                    return std::none_of(prefixes.begin(), prefixes.end(), [&](const std::string &p) { return key.starts_with(p); });
                });
                return 0;
            },
            [](int) {});
    });
    return ready;
}

Result<void> PipelinePlane::startStep(const StageStepPlan &plan)
{
    Result<void> result = makeError("this peer serves no stage");
    onNetworkThread([&] {
        if (!m_optimizer)
            return;
        m_state.stepOutcome.reset();
        m_state.stepIncomplete = false;
        // A trainer keeps the step's microbatches until it drives the next step's: a stage whose
        // all-reduce loses a member steps again after their work is replayed on its survivors.
        // What the step counts here: the confirmed microbatches left once other work is dropped.
        result = m_optimizer->start(plan);
        // Posted after the optimizer dropped other steps' work: what the step counts here.
        const std::uint64_t step = plan.step;
        m_server->worker().post(
            m_server,
            [step](PipelineStage &stage) {
                const auto &keys = stage.confirmedKeys();
                return int(std::count_if(keys.begin(), keys.end(), [&](const std::string &key) { return stepOfKey(key) == step; }));
            },
            [this](int counted) { m_state.stepCounted = counted; });
    });
    return result;
}

void PipelinePlane::expectRound(quint64 round)
{
    onNetworkThread([&] {
        if (m_optimizer)
            m_optimizer->expectRound(round);
    });
}

void PipelinePlane::resyncFrom(const QString &peerKeyId, const QString &endpoint)
{
    onNetworkThread([&] {
        if (!m_server)
            return;
        m_state.resyncOutcome.reset();
        if (!m_transport->isConnected(peerKeyId)) {
            if (Result<void> dialed = m_transport->connectToPeer(endpoint, peerKeyId); !dialed) {
                m_state.resyncOutcome = std::make_pair(false, QString::fromStdString(dialed.error().message));
                return;
            }
            // The request goes once the handshake is done.
            auto *once = new QObject(m_server);
            QObject::connect(m_transport, &PeerTransport::peerConnected, once, [this, once, peerKeyId](const QString &key) {
                if (key != peerKeyId)
                    return;
                once->deleteLater();
                m_server->resyncFrom(peerKeyId);
            });
            QObject::connect(m_transport, &PeerTransport::connectionFailed, once, [this, once, peerKeyId](const QString &key, const QString &why) {
                if (key != peerKeyId)
                    return;
                once->deleteLater();
                m_state.resyncOutcome = std::make_pair(false, why);
            });
            return;
        }
        m_server->resyncFrom(peerKeyId);
    });
}

std::optional<std::pair<QString, QByteArray>> PipelinePlane::exportState(std::chrono::milliseconds timeout)
{
    // Taken on the stage's thread in one piece, between its other work: the hash is the state's.
    auto exported = std::make_shared<std::promise<std::pair<QString, QByteArray>>>();
    std::future<std::pair<QString, QByteArray>> done = exported->get_future();
    onNetworkThread([&] {
        if (!m_server)
            return;
        m_server->worker().post(
            m_server,
            [](PipelineStage &stage) {
                const std::vector<std::byte> bytes = stage.exportState();
                return std::make_pair(QString::fromStdString(stage.hash()),
                                      QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size())));
            },
            [exported](const std::pair<QString, QByteArray> &state) { exported->set_value(state); });
    });
    if (done.wait_for(timeout) != std::future_status::ready)
        return std::nullopt; // no stage, or one dropped (paused, moved) before it got there
    return done.get();
}

void PipelinePlane::evaluate(std::vector<Microbatch> batches)
{
    onNetworkThread([&] {
        m_state.evalOutcome.reset();
        if (!m_evaluator || !m_driver)
            return;
        // One connected peer of every later stage: the first the open step placed there.
        std::vector<QString> peers(m_stagePeers.size());
        for (std::size_t s = 1; s < m_stagePeers.size(); ++s) {
            for (auto it = m_stagePeers[s].constBegin(); it != m_stagePeers[s].constEnd() && peers[s].isEmpty(); ++it) {
                if (m_transport->isConnected(it.key()))
                    peers[s] = it.key();
            }
            if (peers[s].isEmpty()) {
                m_state.evalOutcome = std::make_pair(false, 0.0);
                return;
            }
        }
        m_evaluator->run(std::move(batches), std::move(peers),
                         [this](bool ok, double loss) { m_state.evalOutcome = std::make_pair(ok, loss); });
    });
}

void PipelinePlane::setSuspects(const QStringList &peerKeyIds)
{
    onNetworkThread([&] {
        if (m_driver)
            m_driver->setSuspects(QSet<QString>(peerKeyIds.begin(), peerKeyIds.end()));
    });
}

QStringList PipelinePlane::takeWrongAnswerers()
{
    QStringList taken;
    onNetworkThread([&] { taken = std::exchange(m_state.wrongAnswerers, {}); });
    return taken;
}

std::map<QString, int> PipelinePlane::servedBy(std::uint64_t step)
{
    std::map<QString, int> served;
    onNetworkThread([&] {
        if (!m_driver)
            return;
        const QHash<QString, int> counts = m_driver->confirmedCounts(step);
        for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
            if (!it.key().isEmpty() && qsizetype(served.size()) < protocol::kMaxPipelinePeers)
                served.emplace(it.key(), it.value());
        }
    });
    return served;
}

PipelinePlaneState PipelinePlane::state() const
{
    PipelinePlaneState state;
    onNetworkThread([&] {
        state = m_state;
        if (m_server)
            state.busySeconds = m_server->worker().busySeconds();
        state.inFlight = int(m_driving.size());
        state.bytesSent = m_transport->bytesSent();
        state.bytesReceived = m_transport->bytesReceived();
    });
    return state;
}

void PipelinePlane::refreshHash()
{
    if (!m_server)
        return;
    m_server->worker().post(
        m_server, [](PipelineStage &stage) { return std::make_pair(stage.hash(), stage.stepCount()); },
        [this](const std::pair<std::string, std::int64_t> &state) {
            m_state.hash = QString::fromStdString(state.first);
            m_state.stateSteps = state.second;
        });
}

} // namespace swarmtrain

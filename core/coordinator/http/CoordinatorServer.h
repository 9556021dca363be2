#pragma once

#include "CoordinatorConfig.h"
#include "CoordinatorRounds.h"
#include "CoordinatorSetup.h"
#include "RequestSignature.h"
#include "Result.h"
#include "TlsIdentity.h"

#include <QAbstractHttpServer>
#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QPair>
#include <QThreadPool>
#include <QTimer>

#include <functional>
#include <optional>

class QHttpServerResponder;

namespace swarmtrain {

struct CoordinatorServerOptions {
    TrainingSettings training;
    RoundSettings rounds;
    qint64 maxJsonBytes = 1 << 20;
    qint64 maxClockSkewMs = 60'000;
    int probeTimeoutMs = 2000;
    int evalIters = 10;
    int tickMs = 1000; // how often deadlines and gather timeouts are checked; 0: never (tests)

    static CoordinatorServerOptions from(const CoordinatorConfig &config, qint64 parameterCount);
};

// The coordinator's REST API (see the "Swarm protocol" section of README.md) on Qt HTTP
// Server. Every request but the public downloads and status is signed by a peer's Ed25519 key;
// failures are answered as JSON {"error": ...}. State changes are committed to the store
// before the answer is written.
class CoordinatorServer : public QAbstractHttpServer {
    Q_OBJECT

public:
    using Clock = std::function<qint64()>;

    CoordinatorServer(CoordinatorSetup &setup, CoordinatorServerOptions options, Clock clock = {},
                      QObject *parent = nullptr);
    ~CoordinatorServer() override;

    // Listens (with TLS when given); returns the port.
    Result<quint16> start(const QHostAddress &address, quint16 port, const std::optional<TlsIdentity> &tls);
    CoordinatorRounds &rounds() { return m_rounds; }
    // Blocks until the validation-loss computations in flight are done (tests, shutdown).
    void waitForBackgroundWork() { m_workers.waitForDone(); }

Q_SIGNALS:
    void validationLossRecorded(qint64 round, double loss);

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    struct Reply {
        int status = 200;
        QByteArray body;
        QByteArray contentType = "application/json";
        QList<QPair<QByteArray, QByteArray>> headers;
    };

    static Reply json(const QJsonObject &object, int status = 200);
    static Reply error(int status, const QString &message);
    static void send(QHttpServerResponder &responder, const Reply &reply);

    Result<PeerRecord> authenticate(const QHttpServerRequest &request, const QByteArray &target,
                                    const std::optional<QByteArray> &joiningKey, Reply &failure);
    void handleJoin(const QHttpServerRequest &request, QTcpSocket *socket, const QByteArray &target);
    Reply handleHeartbeat(const PeerRecord &peer, const QJsonObject &body);
    Reply handleContribution(const PeerRecord &peer, const QJsonObject &body);
    Reply handleCheckpointUpload(const PeerRecord &peer, const QHttpServerRequest &request);
    Reply handleRound();
    Reply handleStatus();
    Reply handleDownload(const std::filesystem::path &file, const QString &sha256, const QByteArray &rangeHeader,
                         const QList<QPair<QByteArray, QByteArray>> &extraHeaders);
    Reply joinAnswer(const PeerRecord &peer);
    void computeValidationLoss(const CheckpointRecord &checkpoint);
    void tick();
    qint64 maxCheckpointBytes() const;

    CoordinatorSetup &m_setup;
    CoordinatorStore &m_store;
    CoordinatorServerOptions m_options;
    Clock m_clock;
    CoordinatorRounds m_rounds;
    RequestVerifier m_verifier;
    QTimer m_ticker;
    QThreadPool m_workers;
};

} // namespace swarmtrain

#pragma once

#include "CoordinatorContext.h"
#include "EndpointGroup.h"
#include "RequestSignature.h"
#include "Result.h"
#include "RouteTable.h"
#include "TlsIdentity.h"

#include <QAbstractHttpServer>
#include <QHostAddress>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

namespace swarmtrain {

// The coordinator's REST API (see the "Swarm protocol" section of README.md) on Qt HTTP
// Server. The route table holds every endpoint with its access and body limit; every request
// but the public downloads and status is signed by a peer's Ed25519 key; failures are answered
// as JSON {"error": ...}. State changes are committed to the store before the answer is written.
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
    // The token invite links carry when admission is by invite ("" otherwise); set by start().
    const QString &inviteToken() const { return m_options.trust.inviteToken; }
    // Blocks until the validation-loss computations and the schedule in flight are done (tests, shutdown).
    void waitForBackgroundWork()
    {
        m_validation.waitForDone();
        m_schedule.waitForDone();
    }
    // Reads which peers are online, for link probes and the schedule: on each tick at most every
    // two seconds (not on every heartbeat: it reads every peer), and when a caller asks.
    void refreshPeers();

Q_SIGNALS:
    void validationLossRecorded(qint64 round, double loss);

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    // Checks the request's signature against the peer's stored key, or for a joining peer
    // against `joiningKey`; fills in who signed it.
    Result<void> authenticate(HttpExchange &exchange, const std::optional<QByteArray> &joiningKey, HttpReply &failure);
    // Limits, parsing and signature of `route`, then its handler.
    void dispatch(const Route &route, HttpExchange &exchange);
    void tick();
    // Admission by invite: the token kept in the store, made the first time.
    Result<void> loadInviteToken();
    std::vector<double> ownerWeights(const std::vector<RoundMember> &members) const;

    CoordinatorSetup &m_setup;
    CoordinatorServerOptions m_options;
    Clock m_clock;
    CoordinatorRounds m_rounds;
    RequestVerifier m_verifier;
    StateValidation m_validation;
    LinkBook m_links;
    ScheduleService m_schedule;
    Reputation m_reputation;
    CoordinatorContext m_context;
    std::vector<std::unique_ptr<EndpointGroup>> m_endpoints;
    RouteTable m_routes;
    QTimer m_ticker;
    qint64 m_peersRefreshedMs = 0;
};

} // namespace swarmtrain

#pragma once

#include "BoundedHttpServer.h"
#include "CoordinatorContext.h"
#include "EndpointGroup.h"
#include "RateLimiter.h"
#include "RequestSignature.h"
#include "Result.h"
#include "RouteTable.h"
#include "TlsIdentity.h"

#include <QHostAddress>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

namespace swarmtrain {

// The coordinator's REST API (see the "Swarm protocol" section of README.md) on BoundedHttpServer.
// The route table holds every endpoint with its access and body limit; every request but the
// public downloads and status is signed by a peer's Ed25519 key; requests are rate-limited per
// address (before the body is read) and per key (once signed); failures are answered as JSON
// {"error": ...}. State changes are committed to the store before the answer is written.
class CoordinatorServer : public QObject {
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
    // two seconds (not on every heartbeat: it reads every online peer), and when a caller asks.
    void refreshPeers();

Q_SIGNALS:
    void validationLossRecorded(qint64 round, double loss);

public:
    // Open connections (tests).
    int connectionCount() const { return m_http.connectionCount(); }

private:
    // A request's head: its route, its address's rate, its body's limit and where the body goes.
    HttpAdmission admit(const HttpRequest &request);
    // A complete request: through its route to its handler.
    void handle(const HttpRequest &request, HttpConnection::Replier replier);
    // Before a large body is written to disk: it must be signed, recently, by a registered peer.
    QString unknownSigner(const HttpRequest &request);
    // Checks the request's signature against the peer's stored key, or for a joining peer
    // against `joiningKey`; fills in who signed it.
    Result<void> authenticate(HttpExchange &exchange, const std::optional<QByteArray> &joiningKey, HttpReply &failure);
    // 0 when a request of `keyId` may go now (and is counted), else the milliseconds until it may:
    // this instance's bucket, or with several instances on one database the shared one.
    Result<qint64> takeKeyToken(const QString &keyId);
    // Limits, parsing and signature of `route`, then its handler.
    void dispatch(const Route &route, HttpExchange &exchange);
    void tick();
    // Takes or renews the store's timed-work lease: only its holder moves rounds on a timer, so
    // that of several instances on one database one does (issue 20).
    void updateLeadership();
    // Several instances: the newest state in the store becomes this instance's current one, and
    // the leader computes its validation loss.
    void followSharedState();
    // Pipeline-stage mode, when the flags ask for it or --mode auto finds that a whole copy of
    // the model does not fit the typical peer.
    Result<void> startPipeline();
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
    Verification m_verification;
    PipelineSteps m_pipeline;
    CoordinatorContext m_context;
    std::vector<std::unique_ptr<EndpointGroup>> m_endpoints;
    RouteTable m_routes;
    RateLimiter m_addressLimits;
    RateLimiter m_keyLimits;
    BoundedHttpServer m_http;
    QTimer m_ticker;
    qint64 m_peersRefreshedMs = 0;
    qint64 m_lastTickMs = 0; // when the timed work last ran (GET /v1/health)
    static constexpr qint64 kLeaseMs = 5000;
    QString m_instanceId; // random: names this process in the timed-work lease
    bool m_leader = false;
    qint64 m_validationAskedFor = -1; // the state whose validation the leader last started
};

} // namespace swarmtrain

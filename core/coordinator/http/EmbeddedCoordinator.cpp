#include "EmbeddedCoordinator.h"

#include "CoordinatorServer.h"
#include "CoordinatorSetup.h"
#include "TlsIdentity.h"

#include <QHostAddress>
#include <QPointer>
#include <QThread>

#include <optional>

namespace swarmtrain {

namespace {

// The coordinator's state and server, made, used and destroyed on the coordinator's thread.
class Host : public QObject {
public:
    std::optional<CoordinatorSetup> setup;
    std::unique_ptr<CoordinatorServer> server;
};

} // namespace

EmbeddedCoordinator::EmbeddedCoordinator(CoordinatorConfig config, QObject *parent)
    : QObject(parent), m_config(std::move(config))
{
}

EmbeddedCoordinator::~EmbeddedCoordinator() { stop(); }

bool EmbeddedCoordinator::isRunning() const { return m_thread && m_thread->isRunning(); }

void EmbeddedCoordinator::start()
{
    if (m_thread)
        return;
    m_thread = std::make_unique<QThread>();
    m_thread->setObjectName(QStringLiteral("coordinator"));
    m_thread->start();
    auto *host = new Host;
    host->moveToThread(m_thread.get());
    connect(m_thread.get(), &QThread::finished, host, [host] { delete host; }, Qt::DirectConnection);

    const QPointer<EmbeddedCoordinator> self(this);
    const CoordinatorConfig config = m_config;
    QMetaObject::invokeMethod(host, [host, self, config] {
        const auto answer = [self](bool ok, QString url, QString fingerprint, QString error) {
            QMetaObject::invokeMethod(self.get(), [self, ok, url, fingerprint, error] {
                if (!self)
                    return;
                if (!ok) {
                    self->stop();
                    Q_EMIT self->failed(error);
                    return;
                }
                self->m_url = url;
                self->m_fingerprint = fingerprint;
                Q_EMIT self->started(url, fingerprint);
            });
        };
        Result<CoordinatorSetup> setup = CoordinatorSetup::prepare(config);
        if (!setup)
            return answer(false, {}, {}, QString::fromStdString(setup.error().message));
        host->setup.emplace(std::move(setup).value());
        std::optional<TlsIdentity> tls;
        if (config.tls()) {
            Result<TlsIdentity> identity = config.tlsSelfSigned ? TlsIdentity::loadOrCreateSelfSigned(config.stateDir)
                                                                : TlsIdentity::load(config.tlsCert, config.tlsKey);
            if (!identity)
                return answer(false, {}, {}, QString::fromStdString(identity.error().message));
            tls = std::move(identity).value();
        }
        const QHostAddress address(QString::fromStdString(config.listenHost));
        if (address.isNull())
            return answer(false, {}, {},
                          tr("Cannot listen on \"%1\": not an IP address.").arg(QString::fromStdString(config.listenHost)));
        host->server = std::make_unique<CoordinatorServer>(
            *host->setup, CoordinatorServerOptions::from(config, host->setup->parameterCount));
        Result<quint16> port = host->server->start(address, quint16(config.listenPort), tls);
        if (!port)
            return answer(false, {}, {}, QString::fromStdString(port.error().message));
        // Peers on this PC reach it on loopback whatever address it listens on.
        const QString shown = address == QHostAddress::AnyIPv4 || address == QHostAddress::Any ||
                                      address == QHostAddress::AnyIPv6
                                  ? QStringLiteral("127.0.0.1")
                                  : address.toString();
        const QString url = QStringLiteral("%1://%2:%3").arg(tls ? QStringLiteral("https") : QStringLiteral("http"), shown).arg(*port);
        answer(true, url, tls ? tls->fingerprint : QString(), {});
    });
}

void EmbeddedCoordinator::stop()
{
    if (!m_thread)
        return;
    m_thread->quit();
    m_thread->wait();
    m_thread.reset();
    m_url.clear();
    m_fingerprint.clear();
}

} // namespace swarmtrain

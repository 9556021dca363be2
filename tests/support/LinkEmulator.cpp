#include "LinkEmulator.h"

#include "RelayedConnection.h"

#include <QHash>
#include <QMutex>
#include <QMutexLocker>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

namespace swarmtrain::test {

// The link model and the counters, shared by the caller's thread and the relay thread.
struct LinkEmulatorShared {
    explicit LinkEmulatorShared(LinkEmulatorOptions options) : options(options) {}

    const LinkEmulatorOptions options;
    const std::shared_ptr<QueueAccount> account = std::make_shared<QueueAccount>();
    mutable QMutex mutex; // guards what follows
    LinkModel model;
    QHash<quint16, std::shared_ptr<RelayTraffic>> traffic;
    QList<RelayedConnectionInfo> connections;
    // Made on the relay thread when a connection first needs them, and used only there.
    QHash<QHostAddress, std::shared_ptr<AccessLink>> accessLinks;

    // The access link of `address`, if it has one.
    std::shared_ptr<AccessLink> accessLinkOf(const QHostAddress &address)
    {
        const auto [up, down] = model.accessRateOf(address);
        if (up <= 0 && down <= 0)
            return nullptr;
        const auto bucket = [this](qint64 rate) {
            return rate > 0 ? std::make_unique<TokenBucket>(rate, std::max(options.burstBytes, rate / 100)) : nullptr;
        };
        std::shared_ptr<AccessLink> &link = accessLinks[LinkModel::normalized(address)];
        const auto rateOf = [](const std::unique_ptr<TokenBucket> &b) { return b ? b->bytesPerSecond : 0; };
        if (!link || rateOf(link->up) != up || rateOf(link->down) != down)
            link = std::make_shared<AccessLink>(AccessLink{bucket(up), bucket(down)});
        return link;
    }
};

namespace {

// Runs on the relay thread: the link's shape is chosen once, when the connection is accepted.
void relayAccepted(QTcpSocket *client, quint16 relayPort, const std::shared_ptr<LinkEmulatorShared> &shared,
                   const std::shared_ptr<RelayTraffic> &traffic, const QHostAddress &target, quint16 targetPort,
                   QObject *parent)
{
    RelayedConnectionInfo info;
    info.relayPort = relayPort;
    info.source = LinkModel::normalized(client->peerAddress());
    info.target = target;
    std::shared_ptr<AccessLink> sourceAccess, targetAccess;
    {
        QMutexLocker lock(&shared->mutex);
        info.sourceSite = shared->model.siteOf(info.source);
        info.targetSite = shared->model.siteOf(target);
        info.shape = shared->model.shapeBetween(info.source, target);
        sourceAccess = shared->accessLinkOf(info.source);
        targetAccess = shared->accessLinkOf(target);
        shared->connections.append(info);
    }
    ++traffic->connectionsAccepted;
    new RelayedConnection(client, target, targetPort, info.shape, shared->options, traffic, shared->account,
                          std::move(sourceAccess), std::move(targetAccess), parent);
}

// Runs on the relay thread: one relay port.
Result<quint16> listenForRelay(QObject *hub, const std::shared_ptr<LinkEmulatorShared> &shared,
                               const QHostAddress &target, quint16 targetPort, const QHostAddress &listenAddress)
{
    auto *server = new QTcpServer(hub);
    if (!server->listen(listenAddress, 0)) {
        const std::string reason = server->errorString().toStdString();
        delete server;
        return makeError("cannot listen on " + listenAddress.toString().toStdString() + ": " + reason);
    }
    const quint16 relayPort = server->serverPort();
    auto traffic = std::make_shared<RelayTraffic>();
    {
        QMutexLocker lock(&shared->mutex);
        shared->traffic.insert(relayPort, traffic);
    }
    QObject::connect(server, &QTcpServer::newConnection, server, [=] {
        while (QTcpSocket *client = server->nextPendingConnection())
            relayAccepted(client, relayPort, shared, traffic, LinkModel::normalized(target), targetPort, server);
    });
    return relayPort;
}

} // namespace

LinkEmulator::LinkEmulator(LinkEmulatorOptions options) : m_shared(std::make_shared<LinkEmulatorShared>(options)) {}

LinkEmulator::~LinkEmulator()
{
    stop();
}

Result<void> LinkEmulator::start()
{
    if (isRunning())
        return makeError("the link emulator is already running");
    if (m_shared->options.maxQueuedBytesPerDirection < 4)
        return makeError("maxQueuedBytesPerDirection must be at least 4 bytes");
    m_thread = std::make_unique<QThread>();
    m_thread->setObjectName(QStringLiteral("LinkEmulator"));
    m_hub = new QObject;
    m_hub->moveToThread(m_thread.get());
    m_thread->start();
    return {};
}

void LinkEmulator::stop()
{
    if (!isRunning())
        return;
    QThread *const caller = QThread::currentThread();
    QObject *const hub = m_hub;
    // The sockets must die on their own thread; then the hub comes back here to be deleted.
    QMetaObject::invokeMethod(
        hub,
        [hub, caller] {
            const QObjectList relays = hub->children();
            qDeleteAll(relays);
            hub->moveToThread(caller);
        },
        Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
    delete m_hub;
    m_hub = nullptr;
    m_thread.reset();
}

bool LinkEmulator::isRunning() const
{
    return m_thread != nullptr;
}

Result<quint16> LinkEmulator::addRelay(const QHostAddress &target, quint16 targetPort,
                                       const QHostAddress &listenAddress)
{
    if (!isRunning())
        return makeError("the link emulator is not running");
    Result<quint16> result = makeError("the relay thread did not answer");
    QMetaObject::invokeMethod(
        m_hub,
        [&, hub = m_hub, shared = m_shared] {
            result = listenForRelay(hub, shared, target, targetPort, listenAddress);
        },
        Qt::BlockingQueuedConnection);
    return result;
}

void LinkEmulator::setSite(const QHostAddress &peerAddress, const QString &site)
{
    QMutexLocker lock(&m_shared->mutex);
    m_shared->model.setSite(peerAddress, site);
}

void LinkEmulator::setLink(const QString &siteA, const QString &siteB, LinkShape shape)
{
    QMutexLocker lock(&m_shared->mutex);
    m_shared->model.setLink(siteA, siteB, shape);
}

void LinkEmulator::setDefaultShape(LinkShape shape)
{
    QMutexLocker lock(&m_shared->mutex);
    m_shared->model.setDefaultShape(shape);
}

void LinkEmulator::setAccessRate(const QHostAddress &peerAddress, qint64 upBytesPerSecond, qint64 downBytesPerSecond)
{
    QMutexLocker lock(&m_shared->mutex);
    m_shared->model.setAccessRate(peerAddress, upBytesPerSecond, downBytesPerSecond);
}

LinkShape LinkEmulator::shapeBetween(const QHostAddress &source, const QHostAddress &target) const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->model.shapeBetween(source, target);
}

RelayCounters LinkEmulator::counters(quint16 relayPort) const
{
    QMutexLocker lock(&m_shared->mutex);
    const std::shared_ptr<RelayTraffic> traffic = m_shared->traffic.value(relayPort);
    if (!traffic)
        return {};
    return {traffic->bytesToTarget.load(), traffic->bytesFromTarget.load(), traffic->connectionsAccepted.load()};
}

QList<RelayedConnectionInfo> LinkEmulator::connections() const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->connections;
}

qint64 LinkEmulator::queuedBytes() const
{
    return m_shared->account->queuedBytes.load();
}

qint64 LinkEmulator::peakQueuedBytesPerDirection() const
{
    return m_shared->account->peakPerDirection.load();
}

const LinkEmulatorOptions &LinkEmulator::options() const
{
    return m_shared->options;
}

} // namespace swarmtrain::test

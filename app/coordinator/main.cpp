// swarmtrain-coordinator: hosts a training swarm (REST API, rounds, credit, checkpoints).
#include "CoordinatorConfig.h"
#include "CoordinatorServer.h"
#include "CryptoLifetime.h"
#include "CoordinatorSetup.h"
#include "Invite.h"
#include "SignalQuit.h"
#include "TlsIdentity.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QNetworkInterface>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

using namespace swarmtrain;

namespace {

int fail(const std::string &message)
{
    std::cerr << "swarmtrain-coordinator: error: " << message << std::endl;
    return 1;
}

// The host an invite names: the listening address, or for "any" the first IPv4 address of an
// interface that is up (what friends on the LAN reach this machine at), else loopback.
QString inviteHost(const QHostAddress &listening)
{
    const bool any = listening == QHostAddress(QHostAddress::Any) || listening == QHostAddress(QHostAddress::AnyIPv4)
                     || listening == QHostAddress(QHostAddress::AnyIPv6);
    if (!any)
        return listening.protocol() == QAbstractSocket::IPv6Protocol ? u'[' + listening.toString() + u']'
                                                                     : listening.toString();
    for (const QNetworkInterface &interface : QNetworkInterface::allInterfaces()) {
        if (!(interface.flags() & QNetworkInterface::IsUp) || (interface.flags() & QNetworkInterface::IsLoopBack))
            continue;
        for (const QNetworkAddressEntry &entry : interface.addressEntries()) {
            if (entry.ip().protocol() == QAbstractSocket::IPv4Protocol && !entry.ip().isLoopback())
                return entry.ip().toString();
        }
    }
    return QStringLiteral("127.0.0.1");
}

} // namespace

int main(int argc, char **argv)
{
    keepCryptoUntilExit();
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (std::find_if(args.begin(), args.end(), [](const std::string &arg) { return arg == "--help" || arg == "-h"; })
        != args.end()) {
        std::cout << coordinatorUsage();
        return 0;
    }
    Result<CoordinatorConfig> config = parseCoordinatorArguments(args);
    if (!config)
        return fail(config.error().message);

    QCoreApplication app(argc, argv);
    if (config->migrateOnly) {
        Result<int> version = migrateCoordinatorStore(*config);
        if (!version)
            return fail(version.error().message);
        std::cout << "schema version " << *version << std::endl;
        return 0;
    }
    Result<CoordinatorSetup> setup = CoordinatorSetup::prepare(*config);
    if (!setup)
        return fail(setup.error().message);

    std::optional<TlsIdentity> tls;
    if (config->tls()) {
        Result<TlsIdentity> identity = config->tlsSelfSigned
                                           ? TlsIdentity::loadOrCreateSelfSigned(config->stateDir)
                                           : TlsIdentity::load(config->tlsCert, config->tlsKey);
        if (!identity)
            return fail(identity.error().message);
        tls = std::move(identity).value();
    }

    const QString host = QString::fromStdString(config->listenHost);
    QHostAddress address(host);
    if (host == QLatin1StringView("localhost"))
        address = QHostAddress(QHostAddress::LocalHost);
    if (address.isNull())
        return fail("--listen needs an IP address, got '" + config->listenHost + "'");

    CoordinatorServer server(*setup, CoordinatorServerOptions::from(*config, setup->parameterCount));
    Result<quint16> port = server.start(address, quint16(config->listenPort), tls);
    if (!port)
        return fail(port.error().message);
    if (Result<void> signals = quitOnTerminationSignals(app); !signals)
        return fail(signals.error().message);

    const std::string shownHost = address.protocol() == QAbstractSocket::IPv6Protocol ? "[" + config->listenHost + "]"
                                                                                      : config->listenHost;
    const QString scheme = tls ? QStringLiteral("https") : QStringLiteral("http");
    std::cout << "listening on " << scheme.toStdString() << "://" << shownHost << ":" << *port << std::endl;
    if (tls)
        std::cout << "fingerprint " << tls->fingerprint.toStdString() << std::endl;
    else
        std::cerr << "swarmtrain-coordinator: warning: plain HTTP (--plain-http): anyone on the way can forge this"
                     " coordinator's answers, and clients off this machine refuse it unless they pass"
                     " --allow-plain-http"
                  << std::endl;
    // What a friend pastes into their client: the address and, with TLS, the key to expect.
    const QString swarmUrl = QStringLiteral("%1://%2:%3").arg(scheme, inviteHost(address)).arg(*port);
    const Invite invite{swarmUrl, tls ? tls->fingerprint : QString(), server.inviteToken()};
    std::cout << "invite " << formatInvite(invite).toStdString() << std::endl;
    return app.exec();
}

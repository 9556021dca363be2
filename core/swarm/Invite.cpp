#include "Invite.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QUrl>
#include <QUrlQuery>

namespace swarmtrain {

namespace {

bool isCoordinatorUrl(const QUrl &url)
{
    return url.isValid() && (url.scheme() == QLatin1StringView("http") || url.scheme() == QLatin1StringView("https")) &&
           !url.host().isEmpty();
}

} // namespace

bool isPlainHttpOffThisMachine(const QString &swarmUrl)
{
    const QUrl url(swarmUrl, QUrl::StrictMode);
    if (url.scheme().compare(u"http", Qt::CaseInsensitive) != 0)
        return false;
    const QString host = url.host();
    if (host.compare(u"localhost", Qt::CaseInsensitive) == 0)
        return false;
    const QHostAddress address(host);
    return address.isNull() || !address.isLoopback();
}

QString formatInvite(const Invite &invite)
{
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("swarm"), QString::fromLatin1(QUrl::toPercentEncoding(invite.swarmUrl)));
    if (!invite.pin.isEmpty())
        query.addQueryItem(QStringLiteral("pin"), QString::fromLatin1(QUrl::toPercentEncoding(invite.pin)));
    if (!invite.token.isEmpty())
        query.addQueryItem(QStringLiteral("token"), QString::fromLatin1(QUrl::toPercentEncoding(invite.token)));
    return QStringLiteral("swarmtrain://join?") + query.toString(QUrl::FullyEncoded);
}

Result<Invite> parseInvite(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return makeError(QCoreApplication::translate("swarmtrain::Invite", "Paste a swarm's address or an invite link.").toStdString());
    const QUrl url(trimmed, QUrl::StrictMode);
    if (url.scheme() == QLatin1StringView("swarmtrain")) {
        const QUrlQuery query(url);
        Invite invite;
        invite.swarmUrl = query.queryItemValue(QStringLiteral("swarm"), QUrl::FullyDecoded);
        invite.pin = query.queryItemValue(QStringLiteral("pin"), QUrl::FullyDecoded);
        invite.token = query.queryItemValue(QStringLiteral("token"), QUrl::FullyDecoded).left(128);
        if (url.host() != QLatin1StringView("join") || !isCoordinatorUrl(QUrl(invite.swarmUrl, QUrl::StrictMode)))
            return makeError(QCoreApplication::translate("swarmtrain::Invite", "This invite link is damaged: it names no swarm address.").toStdString());
        if (!invite.pin.isEmpty() && !invite.pin.startsWith(QLatin1StringView("sha256//")))
            return makeError(QCoreApplication::translate("swarmtrain::Invite", "This invite link is damaged: its certificate fingerprint is not sha256//…").toStdString());
        return invite;
    }
    if (!isCoordinatorUrl(url))
        return makeError(QCoreApplication::translate("swarmtrain::Invite", "\"%1\" is neither an invite link nor an http(s) address.").arg(trimmed).toStdString());
    QString address = url.toString();
    while (address.endsWith(QLatin1Char('/')))
        address.chop(1);
    return Invite{address, {}};
}

} // namespace swarmtrain

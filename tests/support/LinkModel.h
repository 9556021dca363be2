#pragma once

#include <QHash>
#include <QHostAddress>
#include <QString>

#include <map>
#include <utility>

namespace swarmtrain::test {

// What a link does to the bytes crossing it, the same in both directions.
struct LinkShape {
    int oneWayDelayMs = 0;     // each chunk is held this long before it is forwarded
    qint64 bytesPerSecond = 0; // 0: unlimited

    friend bool operator==(const LinkShape &, const LinkShape &) = default;
};

// Which site each peer address belongs to, and the link between each pair of sites. Plain
// data, no locking: LinkEmulator guards it.
class LinkModel {
public:
    void setSite(const QHostAddress &address, const QString &site);
    // Symmetric; setLink(site, site, shape) shapes the links inside one site.
    void setLink(const QString &siteA, const QString &siteB, LinkShape shape);
    void setDefaultShape(LinkShape shape) { m_defaultShape = shape; }
    // A peer's access link, shared by all its connections: at most these rates up and down,
    // however many peers it talks to (a home connection). 0: unlimited that way.
    void setAccessRate(const QHostAddress &address, qint64 upBytesPerSecond, qint64 downBytesPerSecond);
    std::pair<qint64, qint64> accessRateOf(const QHostAddress &address) const
    {
        return m_accessRates.value(normalized(address));
    }

    // Empty for an address no site was given.
    QString siteOf(const QHostAddress &address) const;
    // The default shape unless both addresses have sites and a link joins them.
    LinkShape shapeBetween(const QHostAddress &source, const QHostAddress &target) const;

    // ::ffff:127.0.1.1 (a dual-stack socket's view of an IPv4 peer) is 127.0.1.1.
    static QHostAddress normalized(const QHostAddress &address);

private:
    static std::pair<QString, QString> linkKey(const QString &siteA, const QString &siteB);

    QHash<QHostAddress, QString> m_sites;
    QHash<QHostAddress, std::pair<qint64, qint64>> m_accessRates; // up, down
    std::map<std::pair<QString, QString>, LinkShape> m_links;
    LinkShape m_defaultShape;
};

} // namespace swarmtrain::test

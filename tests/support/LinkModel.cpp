#include "LinkModel.h"

namespace swarmtrain::test {

QHostAddress LinkModel::normalized(const QHostAddress &address)
{
    bool isIpv4 = false;
    const quint32 ipv4 = address.toIPv4Address(&isIpv4);
    return isIpv4 ? QHostAddress(ipv4) : address;
}

std::pair<QString, QString> LinkModel::linkKey(const QString &siteA, const QString &siteB)
{
    return siteA < siteB ? std::pair(siteA, siteB) : std::pair(siteB, siteA);
}

void LinkModel::setSite(const QHostAddress &address, const QString &site)
{
    m_sites.insert(normalized(address), site);
}

void LinkModel::setLink(const QString &siteA, const QString &siteB, LinkShape shape)
{
    m_links[linkKey(siteA, siteB)] = shape;
}

QString LinkModel::siteOf(const QHostAddress &address) const
{
    return m_sites.value(normalized(address));
}

LinkShape LinkModel::shapeBetween(const QHostAddress &source, const QHostAddress &target) const
{
    const QString sourceSite = siteOf(source);
    const QString targetSite = siteOf(target);
    if (sourceSite.isEmpty() || targetSite.isEmpty())
        return m_defaultShape;
    const auto link = m_links.find(linkKey(sourceSite, targetSite));
    return link == m_links.end() ? m_defaultShape : link->second;
}

void LinkModel::setAccessRate(const QHostAddress &address, qint64 upBytesPerSecond, qint64 downBytesPerSecond)
{
    m_accessRates.insert(normalized(address), {upBytesPerSecond, downBytesPerSecond});
}

} // namespace swarmtrain::test

#include "RouteTable.h"

namespace swarmtrain {

void RouteTable::add(Route route) { m_routes.push_back(std::move(route)); }

RouteTable::Match RouteTable::match(QHttpServerRequest::Method method, const QString &path) const
{
    Match found{nullptr, 404, {}};
    for (const Route &route : m_routes) {
        // "/" alone is the root page, not a prefix of every path.
        const bool prefix = route.path.size() > 1 && route.path.endsWith(QLatin1Char('/'));
        const bool matches = prefix ? path.startsWith(route.path) && path.size() > route.path.size()
                                    : path == route.path;
        if (!matches)
            continue;
        if (route.method != method) {
            found.status = 405; // the path exists, with another method
            continue;
        }
        return {&route, 0, prefix ? path.mid(route.path.size()) : QString()};
    }
    return found;
}

} // namespace swarmtrain

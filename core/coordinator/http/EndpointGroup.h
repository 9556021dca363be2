#pragma once

#include "CoordinatorContext.h"
#include "RouteTable.h"

namespace swarmtrain {

// One file's endpoints: they add their routes to the server's table and share its context.
class EndpointGroup {
public:
    explicit EndpointGroup(CoordinatorContext context) : m_context(context) {}
    virtual ~EndpointGroup() = default;
    EndpointGroup(const EndpointGroup &) = delete;
    EndpointGroup &operator=(const EndpointGroup &) = delete;

    virtual void addRoutes(RouteTable &routes) = 0;

protected:
    // A route whose body may be as large as a JSON request (the common limit).
    Route route(QHttpServerRequest::Method method, const char *path, RouteAccess access, RouteBody body,
                std::function<void(HttpExchange &)> handler) const
    {
        const qint64 limit = m_context.options.maxJsonBytes;
        return {method, QString::fromLatin1(path), access, body, [limit] { return limit; }, {}, std::move(handler)};
    }

    CoordinatorContext m_context;
};

} // namespace swarmtrain

#pragma once

#include <QHostAddress>
#include <QList>
#include <QtGlobal>

namespace swarmtrain {

// What one stranger may cost BoundedHttpServer before the route table has a say. Bodies have
// their own limit per route (Route::maxBodyBytes).
struct HttpLimits {
    qsizetype maxHeadBytes = 16 * 1024; // request line and headers; more is answered 431
    int maxHeaders = 64;
    int headTimeoutMs = 10'000;   // from a request's first byte to the end of its head (slowloris)
    int idleTimeoutMs = 30'000;   // a kept-alive connection with no request, or a stalled body or download
    int maxConnections = 1024;
    int maxConnectionsPerAddress = 64;
    qint64 maxBufferedBodyBytes = 64 << 20; // all bodies held in memory at once, over all connections
    int maxSpooledUploads = 4;              // bodies being written to disk at once
    // A refused body up to this size is read and dropped, so the client sees the answer; a larger
    // one is answered at once and the connection closed.
    qint64 maxDiscardedBodyBytes = 16 << 20;
    qint64 readBufferBytes = 64 * 1024; // per socket: a peer that sends faster than we handle waits
    qint64 writeChunkBytes = 64 * 1024; // a download is refilled in pieces of this size
    // Load balancers in front (--trusted-proxy): a request that comes through one is from the
    // address it appended to X-Forwarded-For, and the proxy's own connections are not counted
    // against maxConnectionsPerAddress (it carries everyone's requests). Anyone else's
    // X-Forwarded-For is ignored.
    QList<QHostAddress> trustedProxies;

    bool isTrustedProxy(const QHostAddress &address) const;
    // The client's address: `connectedFrom`, or behind a trusted proxy the last entry of the last
    // X-Forwarded-For header, the one it added (unchanged when that is not one address).
    QHostAddress clientAddress(const QHostAddress &connectedFrom, QByteArrayView forwardedFor) const;
};

} // namespace swarmtrain

namespace swarmtrain {

// What all connections of one server hold at once, checked against HttpLimits.
struct HttpBudget {
    qint64 bufferedBodyBytes = 0;
    int spooledUploads = 0;
};

} // namespace swarmtrain

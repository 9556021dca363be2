#pragma once

#include "Frame.h"

#include <QtGlobal>

namespace swarmtrain {

struct PeerTransportOptions {
    FrameLimits limits;
    // Per connection: send() refuses a frame while this much is still queued for the socket
    // (a single frame larger than this is accepted onto an empty queue), so a slow or stalled
    // peer cannot make us buffer without bound.
    qint64 maxWriteBufferBytes = 64ll << 20;
    // Bytes the socket may hold before we read them; the decoder bounds the rest.
    qint64 socketReadBufferBytes = 4ll << 20;
    // A connection that has not finished the handshake by then is dropped.
    int handshakeTimeoutMs = 10'000;
    // Unauthenticated connections allowed at once; more are closed on arrival.
    int maxPendingHandshakes = 64;
    // After we close a connection (with an ERROR frame to say why), how long the socket may
    // take to flush before it is aborted.
    int closeGraceMs = 2'000;
};

} // namespace swarmtrain

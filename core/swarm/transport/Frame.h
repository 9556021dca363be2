#pragma once

#include "proto/frame.pb.h"

#include <QByteArray>
#include <QtGlobal>

namespace swarmtrain {

using FrameHeader = wire::FrameHeader;

// One data-plane frame: the protobuf header and the raw bytes it describes.
struct Frame {
    FrameHeader header;
    QByteArray payload;
};

// Hard limits a receiver enforces before it allocates or parses anything a peer claims.
struct FrameLimits {
    quint32 maxHeaderBytes = 64 * 1024;
    quint64 maxPayloadBytes = 256ull << 20;
    int maxRank = 8;
    // A PROBE's filler: enough to time a link's throughput, too little to be a way to flood.
    quint64 maxProbeBytes = 1ull << 20;
};

} // namespace swarmtrain

#pragma once

#include "Frame.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>

namespace swarmtrain {

class PeerTransport;

// What one probe found about the link from this peer to another.
struct LinkMeasurement {
    QString peerKeyId;
    double rttMs = 0.0;          // a small probe's round trip
    double bytesPerSecond = 0.0; // the filler's rate from this peer to that one
};

// A peer to measure: who it is and where it listens.
struct ProbeTarget {
    QString keyId;
    QString endpoint;
};

struct LinkProberOptions {
    int fillerBytes = 256 * 1024; // enough to time a link of a few MB/s, little for a fast one
    int timeoutMs = 15'000;       // a filler (or a dial) not answered by then is given up
    // A small probe lost on the way (a connection both sides dialled at once keeps one, and what
    // was sent on the other is lost) is sent again after this, a few times.
    int resendMs = 2'000;
    int attempts = 3;
    int idleHangUpMs = 5'000; // a connection opened only to measure closes after this long unused
    int maxRepliesPerSecond = 8;  // per asking peer; probes beyond it go unanswered
    std::function<qint64()> clockMs; // for the reply limit's windows; default: a steady clock
};

// Measures links over the data plane (issue 15: the scheduler's delay and bandwidth matrix):
// a small PROBE for the round trip, then a PROBE with filler bytes whose reply times the
// throughput, then a small one again, to each target in turn, dialling it when there is no
// connection yet. The round trip is the smaller of the two small probes' (a connection that
// also carries an all-reduce delays some); the throughput is the filler's time beyond it, and
// never more than ten times the filler's whole time allows. Answers other peers' probes, a few
// a second at most. Lives on the transport's thread.
class LinkProber : public QObject {
    Q_OBJECT

public:
    // `keepConnection(keyId)`: whether a connection this prober opened is in use elsewhere
    // (a round's member) and must stay open once measured.
    LinkProber(PeerTransport &transport, LinkProberOptions options, std::function<bool(const QString &)> keepConnection,
               QObject *parent = nullptr);

    // Measures each target not being measured already; results collect until taken.
    void probe(const QList<ProbeTarget> &targets);
    QList<LinkMeasurement> takeMeasurements() { return std::exchange(m_measurements, {}); }
    int probesInFlight() const { return int(m_probes.size()); }

Q_SIGNALS:
    void measured(const swarmtrain::LinkMeasurement &measurement);
    void failed(const QString &peerKeyId, const QString &reason);

private:
    // A small probe, the filler, and a small probe again: the smaller round trip is the link's,
    // the other may have waited behind other traffic.
    enum class Stage { Dialing, Timing, Filling, Retiming };
    struct Probe {
        Stage stage = Stage::Dialing;
        quint32 tag = 0;
        int attempts = 0;
        double rttMs = 0.0;
        double fillMs = 0.0; // the filler's send to reply
        QElapsedTimer clock; // since the probe in flight was sent
        QElapsedTimer age;
    };

    void onConnected(const QString &peerKeyId);
    void onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload);
    void answer(const QString &peerKeyId, const FrameHeader &header);
    void sendProbe(const QString &peerKeyId, Probe &probe, Stage stage);
    void finish(const QString &peerKeyId, const QString &failure);
    void expire();
    void hangUpIdle();

    PeerTransport &m_transport;
    LinkProberOptions m_options;
    std::function<bool(const QString &)> m_keepConnection;
    QHash<QString, Probe> m_probes;
    // Connections this prober opened, and how long since a probe went over each: closed when
    // idle, not at once, so the other side's probes on them are not cut off.
    QHash<QString, QElapsedTimer> m_dialed;
    QList<LinkMeasurement> m_measurements;
    quint32 m_nextTag = 1;
    // Replies given per asking peer in the current second.
    QHash<QString, std::pair<qint64, int>> m_replies;
};

} // namespace swarmtrain

Q_DECLARE_METATYPE(swarmtrain::LinkMeasurement)

#pragma once

#include "Frame.h"
#include "Result.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace swarmtrain {

class PeerTransport;

// A member of a round as the coordinator announced it. Reachable members own a range of the
// flat parameter vector; outbound-only members own none and only dial out.
struct AllReduceMember {
    QString keyId;
    QString endpoint; // "host:port" of its data plane; empty when it accepts no connections
    std::int64_t begin = 0;
    std::int64_t end = 0; // [begin, end); empty when it owns nothing
};

struct AllReduceOptions {
    int timeoutMs = 60'000;     // the round's deadline, from start()
    double ownerWaitShare = 0.6; // an owner averages what it has after this share of the timeout
    double maxUpdateRms = 1.0;   // a piece whose root-mean-square is larger is rejected
};

struct AllReduceOutcome {
    std::vector<float> average; // the token-weighted mean pseudo-gradient; zeros where skipped
    std::vector<std::pair<std::int64_t, std::int64_t>> skippedRanges; // owners that failed
    QStringList rejectedSenders;  // pieces refused (bad size, NaN/Inf, outlandish norm)
    int ownPieceContributors = 0; // members in the average of this peer's own range
};

// DESIGN.md's butterfly all-reduce of pseudo-gradients. Every member sends each owner that
// owner's range of its pseudo-gradient, 8-bit quantized with error feedback (what quantization
// drops is added to the next round's values); each owner averages the pieces it got, weighted
// by tokens, quantizes the average once and returns it to every member that sent a piece,
// using the same decoded average itself, so every member applies identical numbers. A range
// whose owner fails is skipped (left zero) by everyone; pieces that arrive late are left out
// of the average. Runs on the transport's thread.
class ButterflyAllReduce : public QObject {
    Q_OBJECT

public:
    // `transport` must outlive this object; `selfKeyId` is this peer's key id.
    ButterflyAllReduce(PeerTransport &transport, QString selfKeyId, QObject *parent = nullptr);

    // Starts round `round`. Errors (an inconsistent member list, a wrong-sized vector) come
    // back at once; otherwise finished(round) is emitted once, by the deadline at the latest.
    Result<void> start(quint64 round, QList<AllReduceMember> members, std::vector<float> pseudoGradient,
                       double tokens, AllReduceOptions options = {});
    bool running() const { return m_running; }
    // The outcome of the last finished round.
    const AllReduceOutcome &outcome() const { return m_outcome; }
    // What quantization has dropped so far (error feedback); reset when a peer resyncs.
    void resetErrorFeedback() { m_residual.clear(); }

Q_SIGNALS:
    void finished(quint64 round);

private:
    enum Tag : quint32 { PieceTag = 1, AverageTag = 2 };
    struct Piece {
        std::vector<float> values;
        double tokens = 0.0;
    };

    void onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload);
    void onPeerConnected(const QString &peerKeyId);
    void sendAverage(const QString &peerKeyId);
    void handlePiece(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    void handleAverage(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    // Why `members` (sorted by key) cannot run a round over `count` parameters, if they cannot.
    Result<void> checkMembers(const QList<AllReduceMember> &members, std::int64_t count) const;
    // Quantizes each owner's piece of the pseudo-gradient with error feedback.
    Result<void> compressPieces(const std::vector<float> &pseudoGradient, double tokens);
    // Dials and sends the pieces, starts the timers and takes the frames that came early.
    void sendPieces();
    void sendPending(const QString &peerKeyId);
    bool dials(const QString &ownerKeyId) const; // this peer opens the connection to that owner
    void dial(const QString &ownerKeyId);
    void onConnectionFailed(const QString &peerKeyId);
    // A member disconnected mid-round, or could not be reached: its piece and its average are
    // not waited for (its range is skipped, as at the deadline).
    void onDeparted(const QString &peerKeyId);
    bool allPiecesIn() const; // from every member that has not gone
    void rejectPiece(const QString &sender, const std::string &why);
    // Averages the pieces of this peer's range and returns the average to their senders.
    void averageOwnRange();
    void finishIfDone();
    void finish();
    const AllReduceMember *member(const QString &keyId) const;
    std::optional<std::vector<float>> decodePiece(const QString &sender, const FrameHeader &header,
                                                   const QByteArray &payload, std::int64_t count);

    PeerTransport &m_transport;
    QString m_self;
    AllReduceOptions m_options;
    bool m_running = false;
    quint64 m_round = 0;
    double m_tokens = 0.0; // this peer's weight: the tokens it trained on
    QList<AllReduceMember> m_members;
    std::vector<float> m_residual;
    std::int64_t m_count = 0;
    const AllReduceMember *m_own = nullptr;
    std::map<QString, Piece> m_pieces;          // for this peer's range, by sender (ordered)
    bool m_ownAveraged = false;
    QHash<QString, QByteArray> m_pendingPieces; // encoded pieces waiting for their owner's connection
    QHash<QString, bool> m_rangeDone;           // by owner: its average arrived (or was skipped)
    QSet<QString> m_departed;                   // members gone this round
    QHash<QString, int> m_failedDials;
    QList<std::pair<QString, Frame>> m_early;   // frames of a round that has not started here yet
    QByteArray m_ownAverage;                    // the encoded average of this peer's range
    QTimer m_ownerTimer;
    QTimer m_deadline;
    AllReduceOutcome m_outcome;
};

} // namespace swarmtrain

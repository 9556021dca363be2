// ButterflyAllReduce's frames of rounds that have not started here yet: held within bounds,
// played when their round starts.
#include "ButterflyAllReduce.h"

#include "PeerTransport.h"
#include "Quantization.h"

#include <QLoggingCategory>

#include <algorithm>

Q_DECLARE_LOGGING_CATEGORY(lcAllReduce)

namespace swarmtrain {

namespace {
constexpr quint64 kFarFutureRounds = 1'000'000;
constexpr qint64 kFarFutureFrameBytes = 4ll << 20;
} // namespace

void ButterflyAllReduce::holdEarly(const QString &sender, const FrameHeader &header, const QByteArray &payload)
{
    const quint64 anchor = std::max(m_round, m_expectedRound);
    if (m_started && header.round() > anchor + kEarlyRoundWindow) {
        return refuseEarly(sender, QStringLiteral("a frame for round %1, too far ahead of round %2")
                                       .arg(header.round()).arg(anchor), /*disconnect=*/true);
    }
    const qint64 bytes = payload.size(), fromSender = m_earlyBytesBySender.value(sender);
    const auto framesFromSender =
        std::count_if(m_early.cbegin(), m_early.cend(), [&](const EarlyFrame &e) { return e.sender == sender; });
    if (framesFromSender >= kMaxEarlyFramesPerSender || fromSender + bytes > m_earlyBudgetPerSender
        || m_earlyBytes + bytes > m_earlyBudget) {
        return refuseEarly(sender, QStringLiteral("an early frame of %1 bytes over the budget").arg(bytes),
                           /*disconnect=*/false);
    }
    m_early.append({sender, Frame{header, payload}});
    m_earlyBytes += bytes;
    m_earlyBytesBySender[sender] = fromSender + bytes;
}

void ButterflyAllReduce::refuseEarly(const QString &sender, const QString &why, bool disconnect)
{
    // Counted in this round's outcome, or the next one's when none runs.
    QStringList &counted = m_running ? m_outcome.rejectedSenders : m_earlyRefusedList;
    if (!counted.contains(sender)) {
        qCWarning(lcAllReduce).noquote() << "refused" << why << "from" << sender;
        counted.append(sender);
    }
    if (disconnect)
        m_transport.disconnectPeer(sender, why);
}

void ButterflyAllReduce::takeEarlyFrames()
{
    const QList<EarlyFrame> early = std::exchange(m_early, {});
    m_earlyBytes = 0;
    m_earlyBytesBySender.clear();
    for (const EarlyFrame &e : early) {
        const quint64 round = e.frame.header.round();
        if (round == m_round)
            onFrame(e.sender, e.frame.header, e.frame.payload);
        else if (round > m_round)
            holdEarly(e.sender, e.frame.header, e.frame.payload); // refused when out of the window now
    }
}

void ButterflyAllReduce::setEarlyBudget()
{
    // A sender brings this peer at most a piece of its range, of the range it checks and (with
    // refereeChecks) of the range it referees, the average of the sender's range, a verdict, its
    // own average of a range it disputes and a ruling; twice that, as the next round's ranges
    // grow when a member leaves.
    const std::int64_t own = m_own ? m_own->end - m_own->begin : 0;
    std::int64_t checked = m_check.owner ? m_check.owner->end - m_check.owner->begin : 0;
    if (m_options.refereeChecks && m_referee.owner)
        checked += m_referee.owner->end - m_referee.owner->begin;
    std::int64_t largest = 0;
    for (const AllReduceMember &m : std::as_const(m_members))
        largest = std::max(largest, m.end - m.begin);
    const qint64 perSender = 2 * qint64(encodedQuantizedSize(std::size_t(own)) + encodedQuantizedSize(std::size_t(checked))
                                        + 2 * encodedQuantizedSize(std::size_t(largest)) + 128);
    m_earlyBudgetPerSender = std::max(perSender, kMinEarlyBudgetPerSender);
    m_earlyBudget = m_earlyBudgetPerSender * (m_members.size() + 1);
}

void ButterflyAllReduce::sendFarFutureFrames(const QString &ownerKeyId)
{
    const AllReduceMember *owner = member(ownerKeyId);
    const QByteArray junk(qsizetype(kFarFutureFrameBytes), '\x7f');
    for (qint64 sent = 0; sent < m_options.misbehaviour.farFutureBytes; sent += junk.size()) {
        const FrameHeader header = tensorHeader(m_round + kFarFutureRounds, PieceTag, *owner, junk.size(), m_tokens);
        if (!m_transport.send(ownerKeyId, header, junk))
            break; // the owner closed the connection, or the write queue is full
    }
}

} // namespace swarmtrain

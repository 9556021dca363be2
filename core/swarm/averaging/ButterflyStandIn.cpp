// ButterflyAllReduce's range averages as members take them: an owner's, or a stand-in's for an
// owner that committed to nothing by the close of the commitments (a stalling stranger,
// AllReduceOptions::uncommitted). The range's checker got every member's piece of it, checked
// against their commitments, so where the coordinator audits ranges
// (AllReduceOptions::keepEvidence) it averages the range in the owner's place and sends every
// member that average. Nobody checks it, so the coordinator's audit always draws it and the
// checker sends the evidence (POST /v1/round/evidence): members keep it only where the ruling
// upholds the very average that came, else apply the range as the coordinator recomputed it.
#include "ButterflyAllReduce.h"

#include "PeerTransport.h"
#include "RangeAgreement.h"

#include <QLoggingCategory>

#include <algorithm>

Q_DECLARE_LOGGING_CATEGORY(lcAllReduce)

namespace swarmtrain {

bool ButterflyAllReduce::standsIn() const
{
    return m_check.owner && m_options.keepEvidence && m_options.uncommitted.contains(m_check.owner->keyId);
}

bool ButterflyAllReduce::awaitsStandIn(const QString &owner) const
{
    const QString checker = m_checkerOf.value(owner);
    if (!m_options.keepEvidence || !m_options.uncommitted.contains(owner) || checker.isEmpty() || m_departed.contains(checker))
        return false;
    return checker != m_self || !m_check.done; // this peer's own stand-in may have found nothing to average
}

const AllReduceMember *ButterflyAllReduce::averagedRange(const QString &sender, const FrameHeader &header) const
{
    const auto owner = std::find_if(m_members.cbegin(), m_members.cend(), [&](const AllReduceMember &m) {
        return m.end > m.begin && range_agreement::sameRange(header, m.begin, m.end);
    });
    if (owner == m_members.cend())
        return nullptr;
    // An owner that committed to nothing has no say in its range: whatever came, it is not
    // waited for, and where the coordinator audits, its checker stands in for it.
    const bool committed = !m_options.uncommitted.contains(owner->keyId);
    if (owner->keyId == sender)
        return committed ? &*owner : nullptr;
    const bool standIn = m_options.keepEvidence && !committed && m_checkerOf.value(owner->keyId) == sender;
    return standIn ? &*owner : nullptr;
}

void ButterflyAllReduce::handleAverage(const QString &sender, const FrameHeader &header, const QByteArray &payload)
{
    const AllReduceMember *owner = averagedRange(sender, header); // its own, or one it stands in for
    const auto done = owner ? m_rangeDone.find(owner->keyId) : m_rangeDone.end();
    if (done == m_rangeDone.end() || *done)
        return;
    std::optional<std::vector<float>> values = decodePiece(sender, header, payload, owner->end - owner->begin);
    if (!values)
        return;
    std::copy(values->begin(), values->end(), m_outcome.average.begin() + owner->begin);
    *done = true;
    m_averageHashes.insert(owner->keyId, range_agreement::sha256(payload));
    m_averagePayloads.insert(owner->keyId, payload);
    m_contributors.insert(owner->keyId, membersIn(header.members()).value_or(QStringList{}));
    if (owner->keyId != sender)
        return; // a stand-in's: the audit rules on it
    if (m_referee.owner == owner) {
        m_referee.contributors = m_contributors.value(sender);
        tryReferee();
    }
    if (m_check.owner == owner)
        takeCheckedAverage(header, payload, std::move(*values));
}

bool ButterflyAllReduce::standInPiecesIn() const
{
    // Every member's that is still here and committed to a piece of the range.
    return std::all_of(m_members.begin(), m_members.end(), [&](const AllReduceMember &m) {
        return m_check.pieces.count(m.keyId) > 0 || m_departed.contains(m.keyId) || m_outcome.rejectedSenders.contains(m.keyId)
               || (m_options.checkedCommitments && !m_options.checkedCommitments->contains(m.keyId));
    });
}

void ButterflyAllReduce::standInAverage()
{
    if (!m_running || m_check.done)
        return;
    m_check.done = true;
    const AllReduceMember &owner = *m_check.owner;
    if (Result<void> kept = keepRecomputed(aggregatePieces(m_check.pieces, owner.end - owner.begin, /*log=*/false)); !kept) {
        qCWarning(lcAllReduce).noquote() << "round" << m_round << ": cannot average the range of" << owner.keyId
                                         << "in its place:" << QString::fromStdString(kept.error().message);
        return;
    }
    std::copy(m_check.recomputedValues.begin(), m_check.recomputedValues.end(), m_outcome.average.begin() + owner.begin);
    m_rangeDone.insert(owner.keyId, true);
    m_averageHashes.insert(owner.keyId, range_agreement::sha256(m_check.recomputed));
    m_averagePayloads.insert(owner.keyId, m_check.recomputed);
    QStringList contributors;
    for (const auto &piece : m_check.pieces)
        contributors.append(piece.first);
    m_contributors.insert(owner.keyId, contributors);
    qCInfo(lcAllReduce).noquote() << "round" << m_round << ": averaged the range of" << owner.keyId
                                  << ", which committed to nothing, in its place from" << contributors.size() << "pieces";
    toConnectedMembers([this](const QString &keyId) { sendStandInAverage(keyId); });
}

void ButterflyAllReduce::sendStandInAverage(const QString &peerKeyId)
{
    if (m_check.recomputed.isEmpty() || !standsIn())
        return;
    FrameHeader header = tensorHeader(m_round, AverageTag, *m_check.owner, m_check.recomputed.size(), 0.0);
    header.set_members(memberBitmap(m_contributors.value(m_check.owner->keyId)).toStdString());
    if (Result<void> r = m_transport.send(peerKeyId, header, m_check.recomputed); !r)
        qCWarning(lcAllReduce).noquote() << "cannot send the average of" << m_check.owner->keyId << "to" << peerKeyId << ":"
                                         << QString::fromStdString(r.error().message);
}

} // namespace swarmtrain

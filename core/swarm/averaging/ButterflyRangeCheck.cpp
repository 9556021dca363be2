// ButterflyAllReduce's two owners per range (RangeCheckers.h): the checker recomputes its
// owner's average from the same pieces and tells every member whether it agrees; where it does
// not, the range's referee settles it (ButterflyRangeReferee.cpp), else everyone skips the range,
// and the two report each other to the coordinator.
#include "ButterflyAllReduce.h"

#include "PeerTransport.h"
#include "Quantization.h"
#include "RangeAgreement.h"
#include "RangeCheckers.h"

#include <QLoggingCategory>
#include <QSet>

#include <algorithm>

Q_DECLARE_LOGGING_CATEGORY(lcAllReduce)

namespace swarmtrain {

namespace {

using range_agreement::sha256;
using range_agreement::toBytes;

constexpr qsizetype kVerdictBytes = 1 + 32; // agrees or not, the SHA-256 of the average checked

bool sameRange(const FrameHeader &header, const AllReduceMember &owner)
{
    return range_agreement::sameRange(header, owner.begin, owner.end);
}

} // namespace

void ButterflyAllReduce::setUpChecks()
{
    m_checkerOf.clear();
    m_refereeOf.clear();
    m_check = {};
    m_referee = {};
    if (!m_options.rangeChecks)
        return;
    std::vector<RangeOwner> owners;
    for (const AllReduceMember &m : std::as_const(m_members)) {
        if (m.end > m.begin)
            owners.push_back({m.keyId, m.begin});
    }
    const qint64 turn = qint64(m_options.rotation > 0 ? m_options.rotation : m_round);
    for (const auto &[owner, checker] : rangeCheckers(owners, turn, m_options.checkSeed)) {
        m_checkerOf.insert(owner, checker);
        if (checker == m_self)
            m_check.owner = member(owner);
    }
    for (const auto &[owner, referee] : rangeReferees(std::move(owners), turn, m_options.checkSeed)) {
        m_refereeOf.insert(owner, referee);
        if (referee == m_self)
            m_referee.owner = member(owner);
    }
}

QByteArray ButterflyAllReduce::memberBitmap(const QStringList &keyIds) const
{
    const QSet<QString> named(keyIds.begin(), keyIds.end());
    QByteArray bitmap((m_members.size() + 7) / 8, '\0');
    for (qsizetype i = 0; i < m_members.size(); ++i) {
        if (named.contains(m_members[i].keyId))
            bitmap[i / 8] = char(bitmap[i / 8] | (1 << (i % 8)));
    }
    return bitmap;
}

std::optional<QStringList> ButterflyAllReduce::membersIn(const std::string &bitmap) const
{
    if (qsizetype(bitmap.size()) != (m_members.size() + 7) / 8)
        return std::nullopt;
    QStringList keyIds;
    for (qsizetype i = 0; i < qsizetype(bitmap.size()) * 8; ++i) {
        if (!((static_cast<unsigned char>(bitmap[std::size_t(i / 8)]) >> (i % 8)) & 1u))
            continue;
        if (i >= m_members.size())
            return std::nullopt; // a bit past the last member
        keyIds.append(m_members[i].keyId);
    }
    return keyIds;
}

void ButterflyAllReduce::handleCheckPiece(const QString &sender, const FrameHeader &header, const QByteArray &payload)
{
    const AllReduceMember *owner = m_check.owner;
    if (!owner || !sameRange(header, *owner) || !member(sender))
        return;
    QString from = sender;
    if (header.tag() == ForwardedPieceTag) {
        // The owner passes on the piece of a contributor that did not come here; the
        // contributor's commitment says whether it is the one it sent.
        const std::optional<QStringList> named = membersIn(header.members());
        if (sender != owner->keyId || !named || named->size() != 1)
            return;
        from = named->front();
    } else if (m_check.done) {
        // A late member gets the verdict the others got, or the average this peer stands in with.
        return standsIn() ? sendStandInAverage(sender) : sendVerdict(sender);
    }
    if (m_check.done || m_check.pieces.count(from))
        return;
    if (m_options.checkedCommitments) {
        const QByteArray committed = m_options.checkedCommitments->value(from);
        if (committed.isEmpty() || sha256(payload).toHex() != committed) {
            qCWarning(lcAllReduce).noquote() << "round" << m_round << ": a piece of" << from << "for the range of"
                                             << owner->keyId << "is not the one it committed to";
            return;
        }
    }
    Result<std::vector<float>> values = decodeValues(header, payload, owner->end - owner->begin);
    if (!values)
        return; // its owner refuses it too
    m_check.pieces[from] = Piece{std::move(values).value(), payload};
    tryCheck();
}

void ButterflyAllReduce::takeCheckedAverage(const FrameHeader &header, const QByteArray &payload, std::vector<float> values)
{
    if (m_check.average || m_check.done)
        return;
    m_check.average = std::move(values);
    m_check.averageHash = sha256(payload);
    const std::optional<QStringList> contributors = membersIn(header.members());
    if (!contributors || contributors->isEmpty())
        return giveVerdict(false, QStringLiteral("it names no contributors this round has"));
    m_check.contributors = *contributors;
    tryCheck();
}

void ButterflyAllReduce::tryCheck()
{
    if (standsIn() && standInPiecesIn())
        return standInAverage();
    if (!m_running || m_check.done || !m_check.average)
        return;
    const Misbehaviour &hostile = m_options.misbehaviour;
    if (hostile.vouchAsChecker || (hostile.allies.contains(m_check.owner->keyId) && m_round >= hostile.fromRound))
        return giveVerdict(true, QStringLiteral("it vouches for it, whatever the pieces make"));
    QStringList missing;
    for (const QString &contributor : std::as_const(m_check.contributors)) {
        if (!m_check.pieces.count(contributor))
            missing.append(contributor);
    }
    if (!missing.isEmpty()) {
        // Pieces a member sent the owner but not this peer: the owner forwards them.
        if (!std::exchange(m_check.requested, true) && m_transport.isConnected(m_check.owner->keyId)) {
            FrameHeader request = tensorHeader(m_round, PieceRequestTag, *m_check.owner, 0, 0.0);
            request.set_members(memberBitmap(missing).toStdString());
            (void)m_transport.send(m_check.owner->keyId, request, {});
        }
        return;
    }
    std::erase_if(m_check.pieces, [&](const auto &piece) { return !m_check.contributors.contains(piece.first); });
    Result<std::vector<float>> recomputed =
        aggregatePieces(m_check.pieces, m_check.owner->end - m_check.owner->begin, /*log=*/false);
    if (recomputed && m_options.misbehaviour.checkerAverage)
        m_options.misbehaviour.checkerAverage(*recomputed);
    if (Result<void> kept = keepRecomputed(recomputed); !kept)
        return giveVerdict(false, QStringLiteral("cannot recompute it: %1").arg(QString::fromStdString(kept.error().message)));
    const double relative = rangeRelativeDifference(m_check.recomputedValues, *m_check.average);
    giveVerdict(relative <= kRangeTolerance,
                QStringLiteral("recomputed from the same %1 pieces, it differs by %2 (relative L2)")
                    .arg(m_check.contributors.size()).arg(relative, 0, 'g', 3));
}

Result<void> ButterflyAllReduce::keepRecomputed(const Result<std::vector<float>> &average)
{
    Result<Quantized> quantized = average ? quantize(*average) : Result<Quantized>(average.error());
    if (!quantized)
        return quantized.error();
    m_check.recomputed = toBytes(encodeQuantized(*quantized));
    m_check.recomputedValues = dequantize(*quantized);
    return {};
}

void ButterflyAllReduce::giveVerdict(bool agrees, const QString &why)
{
    m_check.done = true;
    m_checkTimer.stop();
    const QString &owner = m_check.owner->keyId;
    if (agrees) {
        qCDebug(lcAllReduce).noquote() << "round" << m_round << ": the average of" << owner << "holds:" << why;
    } else {
        qCWarning(lcAllReduce).noquote() << "round" << m_round << ": the average of" << owner
                                         << "does not hold up:" << why;
        m_outcome.disputed.append(owner);
        if (!m_check.recomputed.isEmpty()) {
            m_recomputed.insert(owner, Recomputed{m_check.recomputed, m_check.recomputedValues, sha256(m_check.recomputed)});
            forwardPiecesToReferee();
        }
    }
    m_verdicts.insert(owner, Verdict{agrees, m_check.averageHash});
    m_outcome.checkVerdict = CheckVerdict{owner, QString::fromLatin1(m_check.averageHash.toHex()), m_check.contributors, agrees};
    toConnectedMembers([this](const QString &keyId) { sendVerdict(keyId); });
}

void ButterflyAllReduce::sendVerdict(const QString &peerKeyId)
{
    const auto verdict = m_verdicts.constFind(m_check.owner->keyId);
    if (verdict == m_verdicts.constEnd())
        return;
    if (!verdict->agrees)
        sendRecomputed(peerKeyId); // first: a member that gets the verdict has the average it disputes with
    QByteArray payload(1, verdict->agrees ? '\x01' : '\x00');
    payload += verdict->averageHash;
    payload.resize(kVerdictBytes, '\0');
    (void)m_transport.send(peerKeyId, tensorHeader(m_round, VerdictTag, *m_check.owner, payload.size(), 0.0), payload);
}

void ButterflyAllReduce::handleVerdict(const QString &sender, const FrameHeader &header, const QByteArray &payload)
{
    const auto owner = std::find_if(m_members.cbegin(), m_members.cend(), [&](const AllReduceMember &m) {
        return m.end > m.begin && sameRange(header, m);
    });
    if (owner == m_members.cend() || m_checkerOf.value(owner->keyId) != sender || payload.size() != kVerdictBytes
        || m_verdicts.contains(owner->keyId))
        return; // only the range's checker speaks for it, once
    m_verdicts.insert(owner->keyId, Verdict{payload.front() == '\x01', payload.mid(1)});
    if (m_referee.owner == &*owner)
        tryReferee();
}

void ButterflyAllReduce::handlePieceRequest(const QString &sender, const FrameHeader &header, const QByteArray &)
{
    if (!m_own || !m_ownAveraged || m_forwardedTo.contains(sender) || !sameRange(header, *m_own)
        || (m_checkerOf.value(m_self) != sender && m_refereeOf.value(m_self) != sender))
        return;
    const std::optional<QStringList> wanted = membersIn(header.members());
    if (!wanted)
        return;
    m_forwardedTo.insert(sender); // once a round each: a partner cannot make this peer send its range twice
    for (const QString &keyId : *wanted) {
        const auto piece = m_pieces.find(keyId);
        if (piece == m_pieces.end())
            continue;
        FrameHeader forward = tensorHeader(m_round, ForwardedPieceTag, *m_own, piece->second.encoded.size(), 0.0);
        forward.set_members(memberBitmap({keyId}).toStdString());
        (void)m_transport.send(sender, forward, piece->second.encoded);
    }
}

bool ButterflyAllReduce::verdictsPending() const
{
    for (auto it = m_checkerOf.cbegin(); it != m_checkerOf.cend(); ++it) {
        const QString &owner = it.key(), &checker = it.value();
        const bool averaged = owner == m_self ? !m_ownAverage.isEmpty() : m_rangeDone.value(owner);
        if (averaged && !m_departed.contains(owner) && !m_departed.contains(checker) && !m_verdicts.contains(owner))
            return true; // a range without its average is skipped anyway, and not waited for here
    }
    return false;
}

void ButterflyAllReduce::skipUncheckedRanges()
{
    for (auto it = m_checkerOf.cbegin(); it != m_checkerOf.cend(); ++it) {
        const QString &owner = it.key(), &checker = it.value();
        const bool averaged = owner == m_self ? !m_ownAverage.isEmpty() : m_rangeDone.value(owner);
        if (!averaged)
            continue; // skipped already
        // No verdict, no range, also when the checker has gone: every member decides alike.
        const auto verdict = m_verdicts.constFind(owner);
        const bool refereeDisagrees = refereeChecking(owner) && m_rulings.contains(owner) && !refereeConfirms(owner);
        if (verdict != m_verdicts.constEnd() && (!verdict->agrees || refereeDisagrees)) {
            const AllReduceMember *o = member(owner);
            m_outcome.disputedRanges.push_back(
                {owner, o->begin, o->end, owner == m_self ? m_ownAverage : m_averagePayloads.value(owner)});
        }
        QString why;
        const bool stalled = m_options.uncommitted.contains(checker) || m_options.uncommitted.contains(owner);
        if (verdict == m_verdicts.constEnd() && m_options.keepEvidence && stalled) {
            const AllReduceMember *o = member(owner);
            m_outcome.uncheckedRanges.push_back({owner, o->begin, o->end, {}});
            continue; // the audit rules on it
        }
        if (verdict == m_verdicts.constEnd())
            why = QStringLiteral("its checker %1 gave no verdict").arg(checker);
        else if (!verdict->agrees && applyRuling(owner))
            continue;
        else if (!verdict->agrees)
            why = QStringLiteral("its checker %1 could not reproduce it, and its referee did not settle it").arg(checker);
        else if (verdict->averageHash != m_averageHashes.value(owner))
            why = QStringLiteral("its checker %1 checked another average than the one that came here").arg(checker);
        else if (refereeChecking(owner) && !refereeConfirms(owner))
            why = QStringLiteral("its referee %1 did not confirm it").arg(m_refereeOf.value(owner));
        else
            continue;
        qCWarning(lcAllReduce).noquote() << "round" << m_round << ": the range of" << owner << "is skipped:" << why;
        const AllReduceMember *o = member(owner);
        std::fill(m_outcome.average.begin() + o->begin, m_outcome.average.begin() + o->end, 0.0f);
        m_outcome.skippedRanges.emplace_back(o->begin, o->end);
        // An owner whose checker answered and would not agree reports it; one that said
        // nothing may just be slow, and costs the range only.
        if (owner == m_self && verdict != m_verdicts.constEnd() && !m_outcome.disputed.contains(checker))
            m_outcome.disputed.append(checker);
    }
}

std::vector<RangeAverage> ButterflyAllReduce::appliedAverages() const
{
    std::vector<RangeAverage> applied;
    for (const AllReduceMember &m : m_members) {
        if (m.end <= m.begin)
            continue;
        const bool skipped = std::find(m_outcome.skippedRanges.begin(), m_outcome.skippedRanges.end(),
                                       std::pair(m.begin, m.end))
                             != m_outcome.skippedRanges.end();
        const QByteArray payload = m_redone.contains(m.keyId) ? m_redone.value(m.keyId)
                                   : m.keyId == m_self      ? m_ownAverage
                                                            : m_averagePayloads.value(m.keyId);
        if (skipped || payload.isEmpty())
            continue;
        const auto *bytes = reinterpret_cast<const std::byte *>(payload.constData());
        applied.push_back({m.begin, m.end, {bytes, bytes + payload.size()}});
    }
    std::sort(applied.begin(), applied.end(),
              [](const RangeAverage &a, const RangeAverage &b) { return a.begin < b.begin; });
    return applied;
}

// The owner's side of a dispute over its range (OwnerEvidence.h): what it averaged, for the
// coordinator to rule on, when its checker (or, with refereeChecks, its referee) would not agree,
// or the coordinator may audit it (keepEvidence).
void ButterflyAllReduce::keepEvidence()
{
    const bool disputed = std::any_of(m_outcome.disputedRanges.begin(), m_outcome.disputedRanges.end(),
                                      [&](const DisputedRange &range) { return range.owner == m_self; });
    keepStandInEvidence();
    if (!m_own || m_ownAverage.isEmpty() || !(disputed || m_options.keepEvidence))
        return;
    RangeEvidence evidence;
    evidence.begin = m_own->begin;
    evidence.end = m_own->end;
    evidence.average = m_ownAverage;
    for (const auto &[sender, piece] : m_pieces)
        evidence.pieces.emplace_back(sender, piece.encoded);
    m_outcome.evidence = std::move(evidence);
}

void ButterflyAllReduce::keepStandInEvidence()
{
    if (!standsIn() || m_check.recomputed.isEmpty())
        return;
    RangeEvidence evidence{0, 0, m_check.owner->begin, m_check.owner->end, m_check.recomputed, {}};
    for (const auto &[sender, piece] : m_check.pieces)
        evidence.pieces.emplace_back(sender, piece.encoded);
    m_outcome.standIn = AllReduceOutcome::StandIn{m_check.owner->keyId, std::move(evidence)};
}

} // namespace swarmtrain

// ButterflyAllReduce's referee (RangeCheckers.h): when a range's checker does not agree with its
// owner, it sends every member its own average of the range and the referee the pieces it
// averaged. The referee, a third owner, recomputes the range from those pieces, each held
// against its sender's commitment, and tells every member which of the two averages holds.
// Members apply that one, so a lying owner (or checker) costs no range; the referee reports the
// one that lied.
#include "ButterflyAllReduce.h"

#include "PeerTransport.h"
#include "Quantization.h"
#include "RangeAgreement.h"

#include <QLoggingCategory>

#include <algorithm>

Q_DECLARE_LOGGING_CATEGORY(lcAllReduce)

namespace swarmtrain {

namespace {

using range_agreement::sha256;

constexpr qsizetype kRulingBytes = 1 + 32; // which average holds, its SHA-256

} // namespace

void ButterflyAllReduce::sendRecomputed(const QString &peerKeyId)
{
    if (!m_check.owner || m_check.recomputed.isEmpty())
        return;
    FrameHeader header = tensorHeader(m_round, RecomputedTag, *m_check.owner, m_check.recomputed.size(), 0.0);
    header.set_members(memberBitmap(m_check.contributors).toStdString());
    (void)m_transport.send(peerKeyId, header, m_check.recomputed);
}

void ButterflyAllReduce::forwardPiecesToReferee()
{
    const QString referee = m_refereeOf.value(m_check.owner->keyId);
    if (referee.isEmpty() || !m_transport.isConnected(referee))
        return; // no referee (two owners), or gone: the range is skipped
    for (const auto &[sender, piece] : m_check.pieces) {
        if (sender == referee)
            continue; // it has its own
        FrameHeader forward = tensorHeader(m_round, ForwardedPieceTag, *m_check.owner, piece.encoded.size(), 0.0);
        forward.set_members(memberBitmap({sender}).toStdString());
        (void)m_transport.send(referee, forward, piece.encoded);
    }
}

void ButterflyAllReduce::handleRecomputed(const QString &sender, const FrameHeader &header, const QByteArray &payload)
{
    const auto owner = std::find_if(m_members.cbegin(), m_members.cend(), [&](const AllReduceMember &m) {
        return m.end > m.begin && range_agreement::sameRange(header, m.begin, m.end);
    });
    if (owner == m_members.cend() || m_checkerOf.value(owner->keyId) != sender || m_recomputed.contains(owner->keyId)
        || m_verdicts.contains(owner->keyId))
        return; // only the range's checker, once, and before its verdict
    Result<std::vector<float>> values = decodeValues(header, payload, owner->end - owner->begin);
    if (!values)
        return; // not an average a member could apply: the range is skipped
    m_recomputed.insert(owner->keyId, Recomputed{payload, std::move(values).value(), sha256(payload)});
}

void ButterflyAllReduce::handleRefereePiece(const QString &sender, const FrameHeader &header, const QByteArray &payload)
{
    const AllReduceMember *owner = m_referee.owner;
    if (m_referee.done || !range_agreement::sameRange(header, owner->begin, owner->end)
        || (sender != owner->keyId && sender != m_checkerOf.value(owner->keyId)))
        return; // only the two partners in the dispute pass pieces on
    const std::optional<QStringList> named = membersIn(header.members());
    if (!named || named->size() != 1 || m_referee.pieces.count(named->front()))
        return;
    const QString &from = named->front();
    // Each piece is the one its sender committed to, whoever of the two passes it on. Without
    // commitments, both partners must pass on the same bytes: either could have made a piece up
    // to fit its own average.
    if (m_options.refereedCommitments) {
        const QByteArray committed = m_options.refereedCommitments->value(from);
        if (committed.isEmpty() || sha256(payload).toHex() != committed) {
            qCWarning(lcAllReduce).noquote() << "round" << m_round << ": a piece of" << from << "passed on by" << sender
                                             << "is not the one it committed to";
            return;
        }
    } else {
        const auto first = m_referee.unconfirmed.find(from);
        if (first == m_referee.unconfirmed.end()) {
            m_referee.unconfirmed.emplace(from, std::pair(sender, payload));
            return tryReferee(); // asks the other partner for its copy
        }
        if (first->second.first == sender)
            return;
        if (first->second.second != payload)
            return giveRuling(Ruling::Neither,
                              QStringLiteral("the owner and the checker passed on different pieces of %1").arg(from));
    }
    Result<std::vector<float>> values = decodeValues(header, payload, owner->end - owner->begin);
    if (!values)
        return;
    m_referee.pieces[from] = Piece{std::move(values).value(), payload};
    tryReferee();
}

bool ButterflyAllReduce::refereeAwaitsPieces() const
{
    // A ruling is due once there is something to rule on: with refereeChecks, the owner's
    // average; otherwise a dispute, with the checker's own average.
    return m_referee.owner && !m_referee.done && !m_options.uncommitted.contains(m_referee.owner->keyId)
           && (m_options.refereeChecks ? m_averagePayloads.contains(m_referee.owner->keyId)
                                       : m_recomputed.contains(m_referee.owner->keyId));
}

bool ButterflyAllReduce::takeRefereePiece(const QString &sender, const FrameHeader &header, const QByteArray &payload)
{
    if (!m_options.refereeChecks || !m_referee.owner
        || !range_agreement::sameRange(header, m_referee.owner->begin, m_referee.owner->end))
        return false; // not a piece of the range this peer referees
    if (!member(sender) || m_referee.pieces.count(sender))
        return true;
    if (m_referee.done) {
        sendRuling(sender); // late: the ruling the others got (a second copy is ignored)
        return true;
    }
    if (m_options.refereedCommitments) {
        const QByteArray committed = m_options.refereedCommitments->value(sender);
        if (committed.isEmpty() || sha256(payload).toHex() != committed) {
            qCWarning(lcAllReduce).noquote() << "round" << m_round << ": a piece of" << sender << "for the range of"
                                             << m_referee.owner->keyId << "is not the one it committed to";
            return true;
        }
    }
    Result<std::vector<float>> values = decodeValues(header, payload, m_referee.owner->end - m_referee.owner->begin);
    if (!values)
        return true; // its owner refuses it too
    m_referee.pieces[sender] = Piece{std::move(values).value(), payload};
    tryReferee();
    return true;
}

bool ButterflyAllReduce::refereeConfirms(const QString &owner) const
{
    if (!m_refereeOf.contains(owner))
        return true; // two owners: no referee
    const auto ruling = m_rulings.constFind(owner);
    return ruling != m_rulings.constEnd() && ruling->side == Ruling::Owner && ruling->averageHash == m_averageHashes.value(owner);
}

bool ButterflyAllReduce::refereeChecking(const QString &owner) const
{
    const QString referee = m_refereeOf.value(owner);
    return m_options.refereeChecks && !referee.isEmpty() && (m_rulings.contains(owner) || !m_departed.contains(referee));
}

void ButterflyAllReduce::tryReferee()
{
    if (!m_running || !m_referee.owner || m_referee.done)
        return;
    const QString &owner = m_referee.owner->keyId;
    const auto verdict = m_verdicts.constFind(owner);
    const auto recomputed = m_recomputed.constFind(owner);
    const bool disputed = verdict != m_verdicts.constEnd() && !verdict->agrees && recomputed != m_recomputed.constEnd();
    if (!m_averagePayloads.contains(owner) || (!disputed && !m_options.refereeChecks) || m_options.uncommitted.contains(owner))
        return; // no dispute with an average on each side (yet), and none to check; a stand-in's goes to the audit
    const Misbehaviour &hostile = m_options.misbehaviour;
    if (hostile.allies.contains(owner) && m_round >= hostile.fromRound)
        return giveRuling(Ruling::Owner, QStringLiteral("it vouches for its ally, whatever the pieces make"));
    if (hostile.refereeForChecker && verdict == m_verdicts.constEnd())
        return; // waits for its partner's word
    if (disputed && hostile.refereeForChecker) {
        m_outcome.disputed.append(owner);
        return giveRuling(Ruling::Checker, QStringLiteral("it sides with the checker, whatever the pieces make"));
    }
    if (m_referee.contributors.isEmpty())
        return giveRuling(Ruling::Neither, QStringLiteral("the owner's average names no contributors"));
    QStringList missing;
    for (const QString &contributor : std::as_const(m_referee.contributors)) {
        if (!m_referee.pieces.count(contributor))
            missing.append(contributor);
    }
    if (!missing.isEmpty()) {
        // The checker sends what it averaged; the owner is asked for the rest, once.
        if (!std::exchange(m_referee.requested, true) && m_transport.isConnected(owner)) {
            FrameHeader request = tensorHeader(m_round, PieceRequestTag, *m_referee.owner, 0, 0.0);
            request.set_members(memberBitmap(missing).toStdString());
            (void)m_transport.send(owner, request, {});
        }
        return;
    }
    std::map<QString, Piece> pieces;
    for (const QString &contributor : std::as_const(m_referee.contributors))
        pieces.insert(*m_referee.pieces.find(contributor));
    Result<std::vector<float>> average = aggregatePieces(pieces, m_referee.owner->end - m_referee.owner->begin, false);
    Result<Quantized> quantized = average ? quantize(*average) : Result<Quantized>(average.error());
    if (!quantized) {
        return giveRuling(Ruling::Neither,
                          QStringLiteral("cannot recompute it: %1").arg(QString::fromStdString(quantized.error().message)));
    }
    const std::vector<float> mine = dequantize(*quantized);
    const QByteArray &ownerPayload = m_averagePayloads[owner];
    Result<Quantized> ownerQuantized = decodeQuantized(
        std::span(reinterpret_cast<const std::byte *>(ownerPayload.constData()), std::size_t(ownerPayload.size())),
        mine.size());
    const double owners = ownerQuantized ? rangeRelativeDifference(mine, dequantize(*ownerQuantized)) : 1.0;
    // Checking on its own (refereeChecks): an owner's average that does not hold waits for the
    // checker's word, whose own average may be the one to apply.
    const bool checkerSpoke = verdict != m_verdicts.constEnd() || m_departed.contains(m_checkerOf.value(owner));
    if (!disputed && owners > kRangeTolerance && !checkerSpoke)
        return;
    const double checkers = disputed ? rangeRelativeDifference(mine, recomputed->values) : 1.0;
    const QString why = QStringLiteral("recomputed from the same %1 pieces, the owner's differs by %2 and the checker's by %3")
                            .arg(m_referee.contributors.size())
                            .arg(owners, 0, 'g', 3)
                            .arg(checkers, 0, 'g', 3);
    const bool ownerHolds = owners <= kRangeTolerance, checkerHolds = disputed && checkers <= kRangeTolerance;
    if (!ownerHolds)
        m_outcome.disputed.append(owner);
    if (disputed && !checkerHolds)
        m_outcome.disputed.append(m_checkerOf.value(owner));
    giveRuling(ownerHolds ? Ruling::Owner : checkerHolds ? Ruling::Checker : Ruling::Neither, why);
}

void ButterflyAllReduce::giveRuling(Ruling::Side side, const QString &why)
{
    m_referee.done = true;
    m_refereeTimer.stop();
    const QString &owner = m_referee.owner->keyId;
    const QByteArray hash = side == Ruling::Owner     ? m_averageHashes.value(owner)
                            : side == Ruling::Checker ? m_recomputed.value(owner).hash
                                                      : QByteArray();
    static constexpr const char *kNames[] = {"neither average", "the owner's average", "the checker's average"};
    qCWarning(lcAllReduce).noquote() << "round" << m_round << ": as the referee of the range of" << owner << "," << kNames[side]
                                     << "holds:" << why;
    m_rulings.insert(owner, Ruling{side, hash});
    if (m_options.refereeChecks && m_averageHashes.contains(owner)) {
        m_outcome.refereeVerdict = CheckVerdict{owner, QString::fromLatin1(m_averageHashes.value(owner).toHex()),
                                                m_referee.contributors, side == Ruling::Owner};
    }
    toConnectedMembers([this](const QString &keyId) { sendRuling(keyId); });
}

void ButterflyAllReduce::sendRuling(const QString &peerKeyId)
{
    const auto ruling = m_rulings.constFind(m_referee.owner->keyId);
    if (ruling == m_rulings.constEnd())
        return;
    QByteArray payload(1, char(ruling->side));
    payload += ruling->averageHash;
    payload.resize(kRulingBytes, '\0');
    (void)m_transport.send(peerKeyId, tensorHeader(m_round, RulingTag, *m_referee.owner, payload.size(), 0.0), payload);
}

void ButterflyAllReduce::handleRuling(const QString &sender, const FrameHeader &header, const QByteArray &payload)
{
    const auto owner = std::find_if(m_members.cbegin(), m_members.cend(), [&](const AllReduceMember &m) {
        return m.end > m.begin && range_agreement::sameRange(header, m.begin, m.end);
    });
    if (owner == m_members.cend() || m_refereeOf.value(owner->keyId) != sender || payload.size() != kRulingBytes
        || m_rulings.contains(owner->keyId) || payload.front() < Ruling::Neither || payload.front() > Ruling::Checker)
        return; // only the range's referee speaks for it, once
    m_rulings.insert(owner->keyId, Ruling{Ruling::Side(payload.front()), payload.mid(1)});
}

bool ButterflyAllReduce::rulingsPending() const
{
    // With refereeChecks, for every range whose average came and whose referee is still there.
    if (m_options.refereeChecks) {
        for (auto it = m_refereeOf.cbegin(); it != m_refereeOf.cend(); ++it) {
            const QString &owner = it.key();
            const bool averaged = owner == m_self ? !m_ownAverage.isEmpty() : m_rangeDone.value(owner);
            if (averaged && !m_departed.contains(owner) && !m_departed.contains(it.value()) && !m_rulings.contains(owner))
                return true;
        }
        return false;
    }
    // A member waits for a ruling where the checker disputed the owner's average with one of its
    // own, and the referee is still there.
    for (auto it = m_recomputed.cbegin(); it != m_recomputed.cend(); ++it) {
        const QString &owner = it.key(), referee = m_refereeOf.value(owner);
        const auto verdict = m_verdicts.constFind(owner);
        if (!referee.isEmpty() && !m_departed.contains(referee) && verdict != m_verdicts.constEnd() && !verdict->agrees
            && !m_rulings.contains(owner))
            return true;
    }
    return false;
}

bool ButterflyAllReduce::applyRuling(const QString &owner)
{
    const auto ruling = m_rulings.constFind(owner);
    if (ruling == m_rulings.constEnd())
        return false;
    const AllReduceMember *o = member(owner);
    if (ruling->side == Ruling::Owner && ruling->averageHash == m_averageHashes.value(owner)) {
        // The checker was wrong: the owner's average stands, and the owner reports its checker.
        const QString checker = m_checkerOf.value(owner);
        if (owner == m_self && !m_outcome.disputed.contains(checker))
            m_outcome.disputed.append(checker);
        return true;
    }
    const auto recomputed = m_recomputed.constFind(owner);
    if (ruling->side != Ruling::Checker || recomputed == m_recomputed.constEnd() || ruling->averageHash != recomputed->hash)
        return false;
    qCWarning(lcAllReduce).noquote() << "round" << m_round << ": the range of" << owner
                                     << "is applied as its checker averaged it, which its referee confirmed";
    std::copy(recomputed->values.begin(), recomputed->values.end(), m_outcome.average.begin() + o->begin);
    m_redone.insert(owner, recomputed->payload);
    m_outcome.redoneRanges.emplace_back(o->begin, o->end);
    return true;
}

} // namespace swarmtrain

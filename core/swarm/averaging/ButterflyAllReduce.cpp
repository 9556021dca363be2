#include "ButterflyAllReduce.h"

#include "PeerTransport.h"
#include "Quantization.h"
#include "RangeAgreement.h"

#include <QCryptographicHash>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>
#include <span>
#include <utility>

Q_LOGGING_CATEGORY(lcAllReduce, "swarmtrain.allreduce")

namespace swarmtrain {

namespace {

constexpr int kRedialMs = 200;
constexpr int kMaxFailedDials = 15; // about three seconds of refused connections
// The error-feedback residual a range's piece carries in, at most, relative to the round's own
// update in it (L2); a larger one is dropped. A spot check replays the round without it and wants
// cosine >= 0.99 and a norm within 10% (UpdateAgreement.h): 5% keeps an honest piece above 0.998.
// Only a round far shorter than the one before carries more (one step whose budget a spot check
// spent, after 1,154: 25%, and an honest member was refuted, issue 43).
constexpr double kMaxCarriedResidual = 0.05;

using range_agreement::toBytes;

} // namespace

FrameHeader ButterflyAllReduce::tensorHeader(quint64 round, quint32 tag, const AllReduceMember &owner, qsizetype bytes, double tokens)
{
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_TENSOR);
    header.set_round(round);
    header.set_tag(tag);
    header.set_range_begin(quint64(owner.begin));
    header.set_range_end(quint64(owner.end));
    header.set_dtype("U8");
    header.add_shape(bytes);
    header.set_tokens(tokens);
    return header;
}

ButterflyAllReduce::ButterflyAllReduce(PeerTransport &transport, QString selfKeyId, QObject *parent)
    : QObject(parent)
    , m_transport(transport)
    , m_self(std::move(selfKeyId))
    , m_earlyBudget(kFirstRoundEarlyBudget)
    , m_earlyBudgetPerSender(kFirstRoundEarlyBudget / 4)
{
    for (QTimer *timer : {&m_ownerTimer, &m_checkTimer, &m_refereeTimer, &m_deadline})
        timer->setSingleShot(true);
    connect(&m_ownerTimer, &QTimer::timeout, this, [this] {
        averageOwnRange();
        if (standsIn())
            standInAverage();
        finishIfDone();
    });
    connect(&m_checkTimer, &QTimer::timeout, this, [this] {
        if (m_running && m_check.average && !m_check.done)
            giveVerdict(false, QStringLiteral("the owner's contributors' pieces did not all come"));
        finishIfDone();
    });
    connect(&m_refereeTimer, &QTimer::timeout, this, [this] {
        if (m_running && refereeAwaitsPieces())
            giveRuling(Ruling::Neither, QStringLiteral("the contributors' pieces did not all come"));
        finishIfDone();
    });
    connect(&m_deadline, &QTimer::timeout, this, &ButterflyAllReduce::finish);
    connect(&transport, &PeerTransport::frameReceived, this, &ButterflyAllReduce::onFrame);
    connect(&transport, &PeerTransport::peerConnected, this, &ButterflyAllReduce::onPeerConnected);
    connect(&transport, &PeerTransport::connectionFailed, this,
            [this](const QString &peerKeyId, const QString &) { onConnectionFailed(peerKeyId); });
    connect(&transport, &PeerTransport::peerDisconnected, this,
            [this](const QString &peerKeyId, const QString &) { onDeparted(peerKeyId); });
}

const AllReduceMember *ButterflyAllReduce::member(const QString &keyId) const
{
    for (const AllReduceMember &m : m_members) {
        if (m.keyId == keyId)
            return &m;
    }
    return nullptr;
}

void ButterflyAllReduce::toConnectedMembers(const std::function<void(const QString &)> &send) const
{
    for (const AllReduceMember &m : m_members) {
        if (m.keyId != m_self && m_transport.isConnected(m.keyId))
            send(m.keyId);
    }
}

Result<void> ButterflyAllReduce::checkMembers(const QList<AllReduceMember> &members, std::int64_t count) const
{
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    bool self = false;
    for (qsizetype i = 0; i < members.size(); ++i) {
        const AllReduceMember &m = members[i];
        if (i > 0 && members[i - 1].keyId == m.keyId)
            return makeError("the member list names " + m.keyId.toStdString() + " twice");
        if (m.begin < 0 || m.end < m.begin || m.end > count)
            return makeError("member " + m.keyId.toStdString() + " has a range outside the parameter vector");
        if (m.end > m.begin)
            ranges.emplace_back(m.begin, m.end);
        self = self || m.keyId == m_self;
    }
    std::sort(ranges.begin(), ranges.end());
    std::int64_t covered = 0;
    for (const auto &[begin, end] : ranges) {
        if (begin != covered)
            return makeError("the members' ranges do not tile the parameter vector");
        covered = end;
    }
    if (covered != count)
        return makeError("the members' ranges do not tile the parameter vector");
    if (!self)
        return makeError("this peer is not a member of the round");
    return {};
}

Result<QHash<QString, QByteArray>> ButterflyAllReduce::prepare(quint64 round, QList<AllReduceMember> members,
                                                              std::vector<float> pseudoGradient,
                                                              const Misbehaviour &misbehaviour)
{
    if (m_running)
        return makeError("an all-reduce is already running");
    std::sort(members.begin(), members.end(), [](const auto &a, const auto &b) { return a.keyId < b.keyId; });
    if (Result<void> checked = checkMembers(members, std::int64_t(pseudoGradient.size())); !checked)
        return checked.error();
    if (misbehaviour.pseudoGradient)
        misbehaviour.pseudoGradient(pseudoGradient);
    Result<QHash<QString, QByteArray>> pieces = compressPieces(members, pseudoGradient);
    if (!pieces)
        return pieces.error();
    QHash<QString, QByteArray> hashes;
    for (auto it = pieces->begin(); it != pieces->end(); ++it) {
        hashes.insert(it.key(), QCryptographicHash::hash(it.value(), QCryptographicHash::Sha256).toHex());
        if (misbehaviour.equivocate && !it.value().isEmpty())
            it.value().back() = char(it.value().back() ^ 0x01); // a code off by one: decodes fine
    }
    m_prepared = Prepared{round, std::int64_t(pseudoGradient.size()), std::move(members), std::move(pieces).value()};
    return hashes;
}

Result<void> ButterflyAllReduce::start(quint64 round, QList<AllReduceMember> members, std::vector<float> pseudoGradient,
                                       double tokens, AllReduceOptions options)
{
    if (m_running)
        return makeError("an all-reduce is already running");
    if (!(tokens > 0.0) || !std::isfinite(tokens))
        return makeError("this peer's token count must be positive");
    // The pieces prepared (and committed to) for this round, or made now.
    if (!m_prepared || m_prepared->round != round || !pseudoGradient.empty()) {
        Result<QHash<QString, QByteArray>> prepared =
            prepare(round, std::move(members), std::move(pseudoGradient), options.misbehaviour);
        if (!prepared)
            return prepared.error();
    }
    Prepared prepared = std::exchange(m_prepared, std::nullopt).value();
    m_round = round;
    m_tokens = tokens;
    m_members = std::move(prepared.members);
    m_options = std::move(options);
    m_count = prepared.count;
    m_own = member(m_self);
    if (m_own->end == m_own->begin)
        m_own = nullptr;
    m_pieces.clear();
    m_pendingPieces.clear();
    m_rangeDone.clear();
    m_departed.clear();
    m_failedDials.clear();
    m_ownAveraged = m_own == nullptr;
    m_ownAverage.clear();
    m_averageHashes.clear();
    m_averagePayloads.clear();
    m_contributors.clear();
    m_verdicts.clear();
    m_forwardedTo.clear();
    m_recomputed.clear();
    m_rulings.clear();
    m_redone.clear();
    setUpChecks();
    m_outcome = AllReduceOutcome{};
    m_outcome.average.assign(std::size_t(m_count), 0.0f);
    m_outcome.rejectedSenders = std::exchange(m_earlyRefusedList, {});
    // The commitments are closed when the all-reduce starts: nothing is waited for from a member
    // that committed to nothing (a stalling stranger), nor a piece from one that committed to none
    // for this range.
    for (const AllReduceMember &m : m_members) {
        if (m.keyId != m_self && m_options.uncommitted.contains(m.keyId))
            m_departed.insert(m.keyId);
        if (m.keyId != m_self && m_own && m_options.commitments && !m_options.commitments->contains(m.keyId))
            m_outcome.uncommittedSenders.append(m.keyId);
    }
    if (!m_options.uncommitted.isEmpty())
        qCWarning(lcAllReduce).noquote() << "round" << round << ": not waiting for" << m_options.uncommitted.join(QStringLiteral(", "))
                                         << "(committed to nothing)";
    if (Result<void> taken = takePieces(std::move(prepared.pieces)); !taken)
        return taken;
    m_running = true;
    m_started = true;
    setEarlyBudget();
    qCInfo(lcAllReduce).noquote() << "round" << round << "all-reduce with" << m_members.size() << "members";
    sendPieces();
    return {};
}

Result<QHash<QString, QByteArray>> ButterflyAllReduce::compressPieces(const QList<AllReduceMember> &members,
                                                                     const std::vector<float> &pseudoGradient)
{
    if (m_residual.size() != pseudoGradient.size())
        m_residual.assign(pseudoGradient.size(), 0.0f);
    // Error feedback per owner's range: add what the last rounds dropped (unless it is too large
    // for a spot check to replay this round, kMaxCarriedResidual), quantize, keep the rest.
    QHash<QString, QByteArray> pieces;
    for (const AllReduceMember &owner : members) {
        if (owner.end == owner.begin)
            continue;
        const std::size_t begin = std::size_t(owner.begin), n = std::size_t(owner.end - owner.begin);
        double updateSquared = 0.0, residualSquared = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            updateSquared += double(pseudoGradient[begin + i]) * double(pseudoGradient[begin + i]);
            residualSquared += double(m_residual[begin + i]) * double(m_residual[begin + i]);
        }
        if (residualSquared > kMaxCarriedResidual * kMaxCarriedResidual * updateSquared)
            std::fill_n(m_residual.begin() + std::ptrdiff_t(begin), n, 0.0f);
        std::vector<float> corrected(n);
        for (std::size_t i = 0; i < n; ++i)
            corrected[i] = pseudoGradient[begin + i] + m_residual[begin + i];
        Result<Quantized> quantized = quantize(corrected);
        if (!quantized)
            return makeError("cannot compress this peer's pseudo-gradient: " + quantized.error().message);
        const std::vector<float> sent = dequantize(*quantized);
        for (std::size_t i = 0; i < n; ++i)
            m_residual[begin + i] = corrected[i] - sent[i];
        pieces.insert(owner.keyId, toBytes(encodeQuantized(*quantized)));
    }
    return pieces;
}

Result<void> ButterflyAllReduce::takePieces(QHash<QString, QByteArray> pieces)
{
    // What this peer sends, in range order, is kept for a spot check; its own range's piece
    // goes straight into its own average.
    std::vector<const AllReduceMember *> byRange;
    for (const AllReduceMember &owner : std::as_const(m_members)) {
        if (owner.end > owner.begin)
            byRange.push_back(&owner);
    }
    std::sort(byRange.begin(), byRange.end(), [](const auto *a, const auto *b) { return a->begin < b->begin; });
    for (const AllReduceMember *owner : byRange) {
        const QByteArray bytes = pieces.value(owner->keyId);
        m_outcome.sentUpdate += bytes;
        if (owner->keyId != m_self)
            m_rangeDone.insert(owner->keyId, false);
        // The same piece goes to the range's owner, its checker (and referee, with refereeChecks) but
        // this peer; this peer's own piece also counts where it is the owner, checker or referee.
        std::vector<std::map<QString, Piece> *> keptHere;
        const QString checker = m_checkerOf.value(owner->keyId);
        const QString referee = m_options.refereeChecks ? m_refereeOf.value(owner->keyId) : QString();
        for (const QString &to : {owner->keyId, checker, referee}) {
            if (to.isEmpty() || (to != owner->keyId && m_options.misbehaviour.withholdFromCheckers))
                continue;
            if (to != m_self)
                m_pendingPieces[to].append({owner, bytes});
            else if (to != referee)
                keptHere.push_back(to == owner->keyId ? &m_pieces : &m_check.pieces);
        }
        if (m_referee.owner == owner)
            keptHere.push_back(&m_referee.pieces);
        if (keptHere.empty())
            continue;
        Result<Quantized> own = decodeQuantized(
            std::span(reinterpret_cast<const std::byte *>(bytes.constData()), std::size_t(bytes.size())),
            std::size_t(owner->end - owner->begin));
        if (!own)
            return makeError("cannot take this peer's own piece: " + own.error().message);
        for (std::map<QString, Piece> *pieces : keptHere)
            (*pieces)[m_self] = Piece{dequantize(*own), bytes};
    }
    return {};
}

void ButterflyAllReduce::abort()
{
    if (!m_running)
        return;
    qCInfo(lcAllReduce).noquote() << "round" << m_round << ": all-reduce abandoned (leaving)";
    m_running = false;
    m_ownerTimer.stop();
    m_checkTimer.stop();
    m_refereeTimer.stop();
    m_deadline.stop();
    m_pendingPieces.clear();
    m_pieces.clear();
    m_check = {};
    m_referee = {};
}

void ButterflyAllReduce::sendPieces()
{
    const QStringList pendingOwners = m_pendingPieces.keys();
    for (const QString &owner : pendingOwners) {
        if (dials(owner) && !m_transport.isConnected(owner))
            dial(owner);
    }
    const QStringList owners = m_pendingPieces.keys();
    for (const QString &owner : owners) {
        if (m_transport.isConnected(owner))
            sendPending(owner);
    }
    m_ownerTimer.start(int(m_options.timeoutMs * m_options.ownerWaitShare));
    if (m_check.owner) // halfway between the owners' averaging and the deadline
        m_checkTimer.start(int(m_options.timeoutMs * (1.0 + m_options.ownerWaitShare) / 2.0));
    if (m_referee.owner) // halfway between the checkers giving up and the deadline
        m_refereeTimer.start(int(m_options.timeoutMs * (3.0 + m_options.ownerWaitShare) / 4.0));
    m_deadline.start(m_options.timeoutMs);

    takeEarlyFrames();
    if (m_own && m_pieces.size() == std::size_t(m_members.size()))
        averageOwnRange();
    finishIfDone();
}

void ButterflyAllReduce::onPeerConnected(const QString &peerKeyId)
{
    if (!m_running)
        return;
    sendPending(peerKeyId);
    // A member that connects after this peer ruled on the range it referees gets the ruling the
    // others got (sendRuling() sends nothing before).
    if (m_referee.owner && member(peerKeyId))
        sendRuling(peerKeyId);
}

bool ButterflyAllReduce::dials(const QString &ownerKeyId) const
{
    // Between two owners only the one with the smaller key id dials (the transport would keep
    // that connection anyway, and a piece sent on the other one would be lost with it).
    const bool reachable = !member(m_self)->endpoint.isEmpty();
    return !(reachable && ownerKeyId < m_self);
}

void ButterflyAllReduce::dial(const QString &ownerKeyId)
{
    const AllReduceMember *owner = member(ownerKeyId);
    if (Result<void> r = m_transport.connectToPeer(owner->endpoint, owner->keyId); !r)
        qCWarning(lcAllReduce).noquote() << "cannot dial" << owner->keyId << ":" << QString::fromStdString(r.error().message);
}

void ButterflyAllReduce::onConnectionFailed(const QString &peerKeyId)
{
    // The owner may not have learned this round's members yet and refused us, or may still be
    // starting: dial again shortly, until the deadline ends the round.
    if (!m_running || !m_pendingPieces.contains(peerKeyId) || !dials(peerKeyId))
        return;
    // A member that learns the round late does within a second or two; one that refuses
    // connections for longer has gone (killed, unplugged).
    if (++m_failedDials[peerKeyId] >= kMaxFailedDials)
        return onDeparted(peerKeyId);
    QTimer::singleShot(kRedialMs, this, [this, peerKeyId, round = m_round] {
        if (m_running && m_round == round && m_pendingPieces.contains(peerKeyId) && !m_transport.isConnected(peerKeyId))
            dial(peerKeyId);
    });
}

void ButterflyAllReduce::onDeparted(const QString &peerKeyId)
{
    if (!m_running || !member(peerKeyId) || m_departed.contains(peerKeyId))
        return;
    m_departed.insert(peerKeyId);
    qCInfo(lcAllReduce).noquote() << "round" << m_round << ":" << peerKeyId << "has gone; not waiting for it";
    // Its piece will not come, nor its average if it owned a range.
    if (!m_ownAveraged && allPiecesIn())
        averageOwnRange();
    finishIfDone();
}

bool ButterflyAllReduce::allPiecesIn() const
{
    // A sender whose piece was refused or left out sends no other: it is not waited for.
    return std::all_of(m_members.begin(), m_members.end(), [&](const AllReduceMember &m) {
        return m_pieces.count(m.keyId) > 0 || m_departed.contains(m.keyId) || m_outcome.rejectedSenders.contains(m.keyId)
               || m_outcome.uncommittedSenders.contains(m.keyId);
    });
}

void ButterflyAllReduce::sendPending(const QString &peerKeyId)
{
    const QList<PendingPiece> pending = m_pendingPieces.take(peerKeyId);
    if (!pending.isEmpty() && m_options.misbehaviour.farFutureBytes > 0)
        sendFarFutureFrames(peerKeyId);
    for (const PendingPiece &piece : pending) {
        const FrameHeader header = tensorHeader(m_round, PieceTag, *piece.owner, piece.bytes.size(), m_tokens);
        if (Result<void> r = m_transport.send(peerKeyId, header, piece.bytes); !r)
            qCWarning(lcAllReduce).noquote() << "cannot send a piece to" << peerKeyId << ":" << QString::fromStdString(r.error().message);
    }
}

void ButterflyAllReduce::onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload)
{
    if (header.type() != wire::FRAME_TYPE_TENSOR || header.tag() < PieceTag || header.tag() > RulingTag)
        return;
    if (!m_running || header.round() > m_round) {
        if (!m_started || header.round() > m_round)
            holdEarly(peerKeyId, header, payload);
        return; // else a finished round's straggler
    }
    if (header.round() != m_round)
        return; // a finished round's straggler
    // A peer's frame must not end the network thread (an exception out of its event loop is
    // std::terminate): what cannot be decoded (out of memory, say) is refused.
    try {
        if (header.tag() == PieceTag)
            handlePiece(peerKeyId, header, payload);
        else if (header.tag() == AverageTag)
            handleAverage(peerKeyId, header, payload);
        else if (header.tag() == VerdictTag)
            handleVerdict(peerKeyId, header, payload);
        else if (header.tag() == PieceRequestTag)
            handlePieceRequest(peerKeyId, header, payload);
        else if (header.tag() == RecomputedTag)
            handleRecomputed(peerKeyId, header, payload);
        else if (header.tag() == RulingTag)
            handleRuling(peerKeyId, header, payload);
        else if (m_referee.owner && std::int64_t(header.range_begin()) == m_referee.owner->begin)
            handleRefereePiece(peerKeyId, header, payload); // a piece forwarded to this referee
        else
            handleCheckPiece(peerKeyId, header, payload); // a piece forwarded to this checker
    } catch (const std::exception &e) {
        rejectPiece(peerKeyId, std::string("cannot take the frame: ") + e.what());
    }
    finishIfDone();
}

void ButterflyAllReduce::rejectPiece(const QString &sender, const std::string &why)
{
    qCWarning(lcAllReduce).noquote() << "round" << m_round << ": refused a piece from" << sender << ":"
                                     << QString::fromStdString(why);
    if (!m_outcome.rejectedSenders.contains(sender))
        m_outcome.rejectedSenders.append(sender);
}

void ButterflyAllReduce::handlePiece(const QString &sender, const FrameHeader &header, const QByteArray &payload)
{
    if (m_check.owner && std::int64_t(header.range_begin()) == m_check.owner->begin
        && std::int64_t(header.range_end()) == m_check.owner->end)
        return handleCheckPiece(sender, header, payload);
    if (takeRefereePiece(sender, header, payload))
        return;
    if (!m_own || std::int64_t(header.range_begin()) != m_own->begin || std::int64_t(header.range_end()) != m_own->end
        || !member(sender)) {
        qCWarning(lcAllReduce).noquote() << "round" << m_round << ": a piece from" << sender
                                         << "for a range this peer does not own";
        return;
    }
    if (m_ownAveraged) {
        sendAverage(sender); // late: the average the others got (a second copy is ignored)
        return;
    }
    if (m_pieces.count(sender))
        return;
    // A piece must be the one its sender committed to before anyone saw the others'.
    if (m_options.commitments) {
        const QByteArray committed = m_options.commitments->value(sender);
        if (committed.isEmpty()) {
            qCWarning(lcAllReduce).noquote() << "round" << m_round << ": left out the piece of" << sender
                                             << ", which committed to none";
            if (!m_outcome.uncommittedSenders.contains(sender))
                m_outcome.uncommittedSenders.append(sender);
            return;
        }
        if (QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex() != committed)
            return rejectPiece(sender, "the piece differs from the one its sender committed to");
    }
    // header.tokens() is the sender's claim and is not read: every member weighs the same.
    std::optional<std::vector<float>> values = decodePiece(sender, header, payload, m_own->end - m_own->begin);
    if (!values)
        return;
    m_pieces[sender] = Piece{std::move(*values), payload};
    if (allPiecesIn())
        averageOwnRange(); // onFrame finishes the round when this was the last piece missing
}

void ButterflyAllReduce::averageOwnRange()
{
    if (!m_running || m_ownAveraged)
        return;
    m_ownAveraged = true;
    m_ownerTimer.stop();
    Result<std::vector<float>> average = aggregatePieces(m_pieces, m_own->end - m_own->begin, true);
    Result<Quantized> quantized = average ? quantize(*average) : Result<Quantized>(average.error());
    if (!quantized) {
        qCWarning(lcAllReduce).noquote() << "round" << m_round << ": cannot average this peer's range:"
                                         << QString::fromStdString(quantized.error().message);
        m_outcome.skippedRanges.emplace_back(m_own->begin, m_own->end);
        m_ownAverage.clear();
    } else {
        const std::vector<float> decoded = dequantize(*quantized);
        std::copy(decoded.begin(), decoded.end(), m_outcome.average.begin() + m_own->begin);
        m_ownAverage = toBytes(encodeQuantized(*quantized));
        m_averageHashes.insert(m_self, QCryptographicHash::hash(m_ownAverage, QCryptographicHash::Sha256));
        QStringList &contributors = m_contributors[m_self];
        for (const auto &piece : m_pieces)
            contributors.append(piece.first);
        m_outcome.ownPieceContributors = int(std::count_if(m_pieces.begin(), m_pieces.end(), [&](const auto &piece) {
            const AllReduceMember *m = member(piece.first);
            return m && !m->probation;
        }));
        // Every member gets it, also one whose piece was refused, so all replicas stay equal.
        toConnectedMembers([this](const QString &keyId) { sendAverage(keyId); });
    }
}

void ButterflyAllReduce::sendAverage(const QString &peerKeyId)
{
    if (m_ownAverage.isEmpty())
        return;
    // It names whose pieces are in it, so the checker can recompute it from the same ones.
    QStringList contributors;
    for (const auto &piece : m_pieces)
        contributors.append(piece.first);
    FrameHeader header = tensorHeader(m_round, AverageTag, *m_own, m_ownAverage.size(), 0.0);
    header.set_members(memberBitmap(contributors).toStdString());
    if (Result<void> r = m_transport.send(peerKeyId, header, m_ownAverage); !r)
        qCWarning(lcAllReduce).noquote() << "cannot return the average to" << peerKeyId << ":"
                                         << QString::fromStdString(r.error().message);
}

void ButterflyAllReduce::finishIfDone()
{
    if (!m_running || !m_ownAveraged)
        return;
    for (auto it = m_rangeDone.cbegin(); it != m_rangeDone.cend(); ++it) {
        if (!it.value() && (!m_departed.contains(it.key()) || awaitsStandIn(it.key())))
            return;
    }
    if (verdictsPending() || rulingsPending())
        return;
    finish();
}

void ButterflyAllReduce::findMissingWork()
{
    QSet<QString> missing;
    for (auto it = m_rangeDone.cbegin(); it != m_rangeDone.cend(); ++it) {
        if (!it.value())
            missing.insert(it.key());
    }
    if (m_own && !m_contributors.contains(m_self))
        missing.insert(m_self); // this peer's own range could not be averaged
    for (const QStringList &contributors : std::as_const(m_contributors)) {
        const QSet<QString> in(contributors.begin(), contributors.end());
        for (const AllReduceMember &m : std::as_const(m_members)) {
            if (!m.probation && !in.contains(m.keyId))
                missing.insert(m.keyId);
        }
    }
    m_outcome.missingWork = QStringList(missing.begin(), missing.end());
    m_outcome.missingWork.sort();
}

void ButterflyAllReduce::finish()
{
    if (!m_running)
        return;
    if (!m_ownAveraged)
        averageOwnRange(); // the deadline came first: average what arrived
    if (standsIn())
        standInAverage();
    for (auto it = m_rangeDone.cbegin(); it != m_rangeDone.cend(); ++it) {
        if (it.value())
            continue;
        const AllReduceMember *owner = member(it.key());
        qCWarning(lcAllReduce).noquote() << "round" << m_round << ": owner" << it.key()
                                         << "sent no average; its range is skipped";
        m_outcome.skippedRanges.emplace_back(owner->begin, owner->end);
    }
    findMissingWork();
    skipUncheckedRanges();
    std::sort(m_outcome.skippedRanges.begin(), m_outcome.skippedRanges.end());
    m_outcome.appliedAverages = appliedAverages();
    keepEvidence();
    m_running = false;
    m_ownerTimer.stop();
    m_checkTimer.stop();
    m_refereeTimer.stop();
    m_deadline.stop();
    Q_EMIT finished(m_round);
}

} // namespace swarmtrain

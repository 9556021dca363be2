#include "Verification.h"

#include "OwnerDisputes.h"
#include "Quantization.h"

#include <QCryptographicHash>
#include <QFile>

#include <algorithm>

// The checked member's upload of its update, its verifier's download, and how long the next
// round waits for that verifier (Verification.h).
namespace swarmtrain {

qint64 Verification::maxUpdateBytes() const
{
    // Each piece adds at most one block's scale and a header to the whole vector's encoding.
    return qint64(encodedQuantizedSize(std::size_t(std::max<qint64>(m_rounds.settings().parameterCount, 1))))
           + protocol::kMaxCommittedPieces * qint64(encodedQuantizedSize(kDefaultQuantizationBlockSize));
}

Result<Verification::UpdateExpectation> Verification::expectUpdate(const QString &keyId, qint64 roundNumber, int &status)
{
    status = 500;
    Result<std::optional<SpotCheckRecord>> check = m_store.spotCheck(roundNumber, keyId);
    Result<std::optional<RoundRecord>> round = m_store.round(roundNumber);
    if (!check || !round)
        return makeError("cannot read the spot check");
    status = 409;
    if (!*check || (*check)->state != SpotCheckState::AwaitingUpdate)
        return makeError("the coordinator did not ask for this update");
    if (!*round || (*round)->attempt != (*check)->attempt) {
        (void)finish(**check, SpotCheckState::Expired, QStringLiteral("the round was run again"), {});
        return makeError("round " + std::to_string(roundNumber) + " was run again");
    }
    Result<std::vector<CommitmentRecord>> commitments = m_store.commitments(roundNumber, (*check)->attempt);
    if (!commitments)
        return commitments.error();
    UpdateExpectation expected{**check, {}};
    for (const RoundMember &owner : ownersByRange(**round)) {
        const auto committed = std::find_if(commitments->begin(), commitments->end(), [&](const CommitmentRecord &c) {
            return c.keyId == keyId && c.ownerKeyId == owner.keyId;
        });
        expected.pieces.push_back({owner.keyId, qint64(encodedQuantizedSize(std::size_t(owner.end - owner.begin))),
                                   committed == commitments->end() ? QString() : committed->sha256});
    }
    return expected;
}

QString Verification::mismatchOf(const std::filesystem::path &file, const UpdateExpectation &expected)
{
    // Piece by piece, in range order: each the size its range encodes to, with the hash committed.
    QFile in(QString::fromStdString(file.string()));
    if (!in.open(QIODevice::ReadOnly))
        return QStringLiteral("the upload cannot be read");
    qint64 total = 0;
    for (const ExpectedPiece &piece : expected.pieces) {
        total += piece.bytes;
        QCryptographicHash hash(QCryptographicHash::Sha256);
        qint64 left = piece.bytes;
        while (left > 0) {
            const QByteArray chunk = in.read(std::min<qint64>(left, 1 << 20));
            if (chunk.isEmpty())
                break;
            hash.addData(chunk);
            left -= chunk.size();
        }
        if (left != 0 || QString::fromLatin1(hash.result().toHex()) != piece.sha256)
            return QStringLiteral("its piece for %1 differs from its commitment").arg(piece.ownerKeyId);
    }
    if (in.size() != total)
        return QStringLiteral("the update has %1 bytes, the round's pieces %2").arg(in.size()).arg(total);
    return {};
}

Result<void> Verification::keepUpdate(const UpdateExpectation &expected, const std::filesystem::path &file,
                                      const QString &sha256, const QString &mismatch, int &status)
{
    // The check may have ended while the file was read.
    status = 500;
    Result<std::optional<SpotCheckRecord>> check = m_store.spotCheck(expected.check.round, expected.check.memberKeyId);
    if (!check)
        return check.error();
    status = 409;
    if (!*check || (*check)->state != SpotCheckState::AwaitingUpdate)
        return makeError("the coordinator no longer waits for this update");
    status = 400;
    if (!mismatch.isEmpty()) {
        if (Result<void> ended = finish(**check, SpotCheckState::Refuted, mismatch, QStringLiteral("equivocation")); !ended)
            return ended;
        return makeError(mismatch.toStdString());
    }
    status = 500;
    SpotCheckRecord kept = **check;
    kept.updateFile = QStringLiteral("round-%1-%2.bin").arg(kept.round).arg(kept.memberKeyId);
    kept.updateSha256 = sha256;
    std::error_code ec;
    std::filesystem::create_directories(m_updatesDir, ec);
    std::filesystem::rename(file, updatePath(kept), ec);
    if (ec)
        return makeError("cannot keep the update: " + ec.message());
    kept.state = SpotCheckState::Checking;
    if (Result<void> saved = m_store.saveSpotCheck(kept); !saved)
        return saved;
    Result<std::optional<PeerRecord>> member = m_store.peer(kept.memberKeyId);
    if (member && *member)
        holdForNewcomer(kept, **member);
    return {};
}

Result<SpotCheckRecord> Verification::updateFor(const QString &verifierKeyId, qint64 round, const QString &memberKeyId,
                                                int &status)
{
    status = 500;
    Result<std::optional<SpotCheckRecord>> check = m_store.spotCheck(round, memberKeyId);
    if (!check)
        return check.error();
    status = 404;
    if (!*check || (*check)->verifierKeyId != verifierKeyId || (*check)->state != SpotCheckState::Checking)
        return makeError("no update of that member and round waits for this peer's check");
    return **check;
}

bool Verification::replayFits(const PeerRecord &member, const PeerRecord &verifier)
{
    return member.tokensPerSecond <= 0.0 || verifier.tokensPerSecond * kReplaySlowdown >= member.tokensPerSecond;
}

void Verification::holdForNewcomer(const SpotCheckRecord &check, const PeerRecord &member)
{
    if (check.verifierKeyId.isEmpty() || established(member))
        return;
    // A verifier too slow to replay the round soon (the only one free) sits rounds out instead,
    // as for an established member's check: nobody waits on it.
    Result<std::optional<PeerRecord>> verifier = m_store.peer(check.verifierKeyId);
    if (!verifier || !*verifier || !replayFits(member, **verifier))
        return;
    // While the update is awaited, no longer than a round waits for any peer not ready yet: a
    // stranger that withholds it holds the swarm no longer than by never saying it is ready.
    const RoundSettings &rounds = m_rounds.settings();
    const bool updateIn = check.state == SpotCheckState::Checking;
    m_rounds.holdGathering(check.verifierKeyId, m_clock() + (updateIn ? rounds.roundDeadlineMs : rounds.gatherTimeoutMs));
}

} // namespace swarmtrain

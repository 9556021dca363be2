#include "VerificationMessages.h"

#include "JsonReader.h"
#include "TrainingSettings.h"

#include <QJsonArray>
#include <QSet>

#include <algorithm>
#include <set>

namespace swarmtrain {

namespace {

using namespace protocol;
using L = QLatin1StringView;

constexpr qint64 kMaxCount = JsonReader::kMaxExactInteger;
constexpr qsizetype kMaxKeyIdChars = 64;

QJsonArray hashesToJson(const std::vector<PieceHash> &pieces)
{
    QJsonArray list;
    for (const PieceHash &piece : pieces)
        list.append(QJsonObject{{L("peer_id"), piece.peerId}, {L("sha256"), piece.sha256}});
    return list;
}

std::vector<PieceHash> readHashes(JsonReader &r, QLatin1StringView name)
{
    std::vector<PieceHash> pieces;
    const QJsonArray list = r.array(name, kMaxCommittedPieces);
    for (qsizetype i = 0; i < list.size() && r.ok(); ++i) {
        JsonReader piece = r.element(list, name, i);
        pieces.push_back({piece.string(L("peer_id"), kMaxKeyIdChars), piece.sha256Hex(L("sha256"))});
    }
    return pieces;
}

} // namespace

QJsonObject CommitRequest::toJson() const
{
    return QJsonObject{{L("round"), double(round)}, {L("pieces"), hashesToJson(pieces)}};
}

Result<CommitRequest> CommitRequest::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("commit"));
    CommitRequest m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.pieces = readHashes(r, L("pieces"));
    return r.finish(std::move(m));
}

QJsonObject CommitmentsAnswer::toJson() const
{
    QJsonObject json{{L("round"), double(round)},
                     {L("complete"), complete},
                     {L("pieces"), hashesToJson(pieces)},
                     {L("checked"), hashesToJson(checked)},
                     {L("refereed"), hashesToJson(refereed)}};
    if (!uncommitted.isEmpty())
        json.insert(L("uncommitted"), QJsonArray::fromStringList(uncommitted));
    if (rangeRulings)
        json.insert(L("range_rulings"), true);
    if (checkSeed != 0)
        json.insert(L("check_seed"), QString::number(checkSeed, 16).rightJustified(16, QLatin1Char('0')));
    if (rangeAudits)
        json.insert(L("range_audits"), true);
    if (refereeChecks)
        json.insert(L("referee_checks"), true);
    return json;
}

Result<CommitmentsAnswer> CommitmentsAnswer::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("commitments"));
    CommitmentsAnswer m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.complete = r.boolean(L("complete"));
    m.pieces = readHashes(r, L("pieces"));
    if (r.has(L("checked")))
        m.checked = readHashes(r, L("checked"));
    if (r.has(L("refereed")))
        m.refereed = readHashes(r, L("refereed"));
    m.uncommitted = r.optionalStrings(L("uncommitted"), kMaxCommittedPieces, kMaxKeyIdChars);
    m.rangeRulings = r.optionalBoolean(L("range_rulings")).value_or(false);
    if (r.has(L("check_seed"))) {
        const QString seed = r.string(L("check_seed"), 16);
        bool hex = seed.size() == 16 && std::all_of(seed.begin(), seed.end(), [](QChar c) {
                       return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
                   });
        m.checkSeed = hex ? seed.toULongLong(&hex, 16) : 0;
        if (!hex || m.checkSeed == 0)
            r.fail(L("check_seed"), QStringLiteral("must be 16 hex digits, not all zero"));
    }
    m.rangeAudits = r.optionalBoolean(L("range_audits")).value_or(false);
    m.refereeChecks = r.optionalBoolean(L("referee_checks")).value_or(false);
    return r.finish(std::move(m));
}

QJsonObject AverageClaim::toJson() const
{
    QJsonObject json{{L("round"), double(round)},
                     {L("attempt"), attempt},
                     {L("sha256"), sha256},
                     {L("contributors"), QJsonArray::fromStringList(contributors)}};
    if (!owner.isEmpty()) {
        json.insert(L("owner"), owner);
        json.insert(L("agrees"), agrees);
    }
    return json;
}

Result<AverageClaim> AverageClaim::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("average claim"));
    AverageClaim m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.attempt = int(r.integer(L("attempt"), 0, 1 << 20));
    m.sha256 = r.sha256Hex(L("sha256"));
    m.contributors = r.optionalStrings(L("contributors"), kMaxCommittedPieces, kMaxKeyIdChars);
    if (m.contributors.contains(QString()))
        r.fail(L("contributors"), QStringLiteral("must name each member by its key"));
    else if (QSet<QString>(m.contributors.begin(), m.contributors.end()).size() != m.contributors.size())
        r.fail(L("contributors"), QStringLiteral("names a member twice"));
    if (r.has(L("owner"))) {
        m.owner = r.string(L("owner"), kMaxKeyIdChars);
        if (m.owner.isEmpty())
            r.fail(L("owner"), QStringLiteral("must be a key"));
    }
    m.agrees = r.optionalBoolean(L("agrees")).value_or(true);
    if (r.has(L("agrees")) && m.owner.isEmpty())
        r.fail(L("agrees"), QStringLiteral("is a checker's verdict, which names the owner"));
    if (m.agrees && m.contributors.isEmpty())
        r.fail(L("contributors"), QStringLiteral("must name the members whose pieces are in the average"));
    return r.finish(std::move(m));
}

QJsonObject RangeAudit::toJson() const
{
    QJsonObject json{{L("round"), double(round)}, {L("drawn"), drawn}};
    if (drawn)
        json.insert(L("owners"), QJsonArray::fromStringList(owners));
    return json;
}

Result<RangeAudit> RangeAudit::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("range audit"));
    RangeAudit m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.drawn = r.boolean(L("drawn"));
    if (m.drawn)
        m.owners = r.optionalStrings(L("owners"), kMaxCommittedPieces, kMaxKeyIdChars);
    return r.finish(std::move(m));
}

QJsonObject SpotCheckTask::toJson() const
{
    QJsonArray list;
    for (const auto &[begin, end] : ranges)
        list.append(QJsonArray{double(begin), double(end)});
    QJsonObject json{{L("round"), double(round)},
                     {L("peer_id"), peerId},
                     {L("shards"), QJsonArray::fromStringList(shards)},
                     {L("ranges"), list},
                     {L("update_ready"), updateReady}};
    if (steps > 0)
        json.insert(L("steps"), double(steps));
    if (staleness > 0)
        json.insert(L("staleness"), double(staleness));
    return json;
}

Result<SpotCheckTask> SpotCheckTask::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("spot check"));
    SpotCheckTask m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.peerId = r.string(L("peer_id"), kMaxKeyIdChars);
    const QJsonArray shards = r.array(L("shards"), kMaxReportedPeers);
    for (qsizetype i = 0; i < shards.size() && r.ok(); ++i)
        m.shards.append(r.stringAt(shards, L("shards"), i, 64));
    const QJsonArray ranges = r.array(L("ranges"), kMaxCommittedPieces);
    qint64 covered = 0;
    for (qsizetype i = 0; i < ranges.size() && r.ok(); ++i) {
        const QJsonArray range = ranges.at(i).toArray();
        const qint64 begin = r.integerAt(range, L("ranges"), 0, 0, kMaxCount);
        const qint64 end = r.integerAt(range, L("ranges"), 1, 0, kMaxCount);
        if (range.size() != 2 || begin != covered || end <= begin)
            r.fail(L("ranges"), QStringLiteral("must be contiguous [begin, end) pairs from 0"));
        covered = end;
        m.ranges.emplace_back(begin, end);
    }
    m.updateReady = r.boolean(L("update_ready"));
    m.steps = r.integer(L("steps"), 0, kMaxCount, 0);
    m.staleness = r.integer(L("staleness"), 0, std::min<qint64>(m.round, protocol::kMaxStaleness), 0);
    return r.finish(std::move(m));
}

QJsonObject SpotCheckReport::toJson() const
{
    QJsonObject json{{L("round"), double(round)}, {L("peer_id"), peerId}};
    if (failed.isEmpty()) {
        json.insert(L("cosine"), cosine);
        json.insert(L("relative_norm"), relativeNorm);
    } else {
        json.insert(L("failed"), failed);
    }
    return json;
}

Result<SpotCheckReport> SpotCheckReport::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("spot check report"));
    SpotCheckReport m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.peerId = r.string(L("peer_id"), kMaxKeyIdChars);
    m.failed = r.text(L("failed"), kMaxFailureChars);
    if (m.failed.isEmpty()) {
        m.cosine = r.number(L("cosine"), -1.0, 1.0);
        m.relativeNorm = r.number(L("relative_norm"), 0.0, 1e12);
    }
    return r.finish(std::move(m));
}

QJsonObject RangeEvidence::toJson() const
{
    QJsonArray list;
    for (const auto &[sender, payload] : pieces)
        list.append(QJsonObject{{L("peer_id"), sender}, {L("payload"), QString::fromLatin1(payload.toBase64())}});
    return QJsonObject{{L("round"), double(round)}, {L("attempt"), attempt},
                       {L("begin"), double(begin)}, {L("end"), double(end)},
                       {L("average"), QString::fromLatin1(average.toBase64())}, {L("pieces"), list}};
}

Result<RangeEvidence> RangeEvidence::fromJson(const QJsonObject &json, qsizetype maxPayloadBytes)
{
    JsonReader r(json, QStringLiteral("range evidence"));
    RangeEvidence m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.attempt = int(r.integer(L("attempt"), 0, 1 << 20));
    m.begin = r.integer(L("begin"), 0, kMaxCount);
    m.end = r.integer(L("end"), 0, kMaxCount);
    if (r.ok() && m.end <= m.begin)
        r.fail(L("end"), QStringLiteral("must be past begin"));
    m.average = r.base64AtMost(L("average"), maxPayloadBytes);
    const QJsonArray list = r.array(L("pieces"), kMaxCommittedPieces);
    std::set<QString> senders;
    for (qsizetype i = 0; i < list.size() && r.ok(); ++i) {
        JsonReader piece = r.element(list, L("pieces"), i);
        const QString sender = piece.string(L("peer_id"), kMaxKeyIdChars);
        QByteArray payload = piece.base64AtMost(L("payload"), maxPayloadBytes);
        if (piece.ok() && !senders.insert(sender).second)
            r.fail(L("pieces"), QStringLiteral("hold two pieces of %1").arg(sender));
        m.pieces.emplace_back(sender, std::move(payload));
    }
    if (r.ok() && m.pieces.empty())
        r.fail(L("pieces"), QStringLiteral("must hold the pieces averaged"));
    return r.finish(std::move(m));
}

QJsonObject EvidenceRuling::toJson() const { return QJsonObject{{L("upheld"), upheld}, {L("why"), why}}; }

Result<EvidenceRuling> EvidenceRuling::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("evidence ruling"));
    EvidenceRuling m;
    m.upheld = r.boolean(L("upheld"));
    m.why = r.text(L("why"), kMaxFailureChars);
    return r.finish(std::move(m));
}

QJsonObject RangeRuling::toJson() const
{
    QJsonObject json{{L("round"), double(round)},
                     {L("owner"), owner},
                     {L("state"), state == State::Upheld    ? L("upheld")
                                  : state == State::Refuted ? L("refuted")
                                                            : L("pending")}};
    if (state != State::Pending)
        json.insert(L("average_sha256"), averageSha256);
    if (state == State::Refuted && !redoneSha256.isEmpty())
        json.insert(L("redone_sha256"), redoneSha256);
    return json;
}

Result<RangeRuling> RangeRuling::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("range ruling"));
    RangeRuling m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.owner = r.string(L("owner"), kMaxKeyIdChars);
    const QString state = r.oneOf(L("state"), {L("pending"), L("upheld"), L("refuted")});
    m.state = state == L("upheld") ? State::Upheld : state == L("refuted") ? State::Refuted : State::Pending;
    if (m.state != State::Pending)
        m.averageSha256 = r.sha256Hex(L("average_sha256"));
    if (r.has(L("redone_sha256"))) {
        m.redoneSha256 = r.sha256Hex(L("redone_sha256"));
        if (m.state != State::Refuted)
            r.fail(L("redone_sha256"), QStringLiteral("comes only with a refuted average"));
    }
    return r.finish(std::move(m));
}

} // namespace swarmtrain

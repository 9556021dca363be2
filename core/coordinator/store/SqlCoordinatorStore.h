#pragma once

#include "CoordinatorStore.h"

#include <QHash>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

#include <filesystem>
#include <functional>
#include <memory>


namespace swarmtrain {

// CoordinatorStore in SQL through QtSql, on one of two databases that run the same statements:
// - SQLite (QSQLITE), the embedded default: one file in WAL mode with synchronous=FULL, so a
//   commit is on disk before the call returns and a kill -9 or power cut leaves it readable.
// - PostgreSQL (QPSQL), for several coordinator instances on one database (issue 20). A
//   connection lost (the server restarted) is opened again, and a statement outside a
//   transaction that failed with it is run again once.
// Used from one thread.
class SqlCoordinatorStore final : public CoordinatorStore {
public:
    enum class Dialect { Sqlite, Postgres };

    static Result<std::unique_ptr<SqlCoordinatorStore>> openSqlite(const std::filesystem::path &file);
    // `url`: postgresql://user[:password]@host[:port]/database[?sslmode=...&connect_timeout=...]
    // (a password may come from PGPASSWORD or ~/.pgpass instead). `schemaVersion`: the version
    // to migrate to, 0 for the newest (tests of the upgrade make an older one).
    static Result<std::unique_ptr<SqlCoordinatorStore>> openPostgres(const QString &url, int schemaVersion = 0);
    Dialect dialect() const { return m_dialect; }
    ~SqlCoordinatorStore() override;
    SqlCoordinatorStore(const SqlCoordinatorStore &) = delete;
    SqlCoordinatorStore &operator=(const SqlCoordinatorStore &) = delete;

    Result<std::optional<QString>> meta(const QString &key) override;
    Result<void> setMeta(const QString &key, const QString &value) override;

    Result<void> savePeer(const PeerRecord &peer) override;
    Result<std::optional<PeerRecord>> peer(const QString &keyId) override;
    Result<std::vector<PeerRecord>> peers() override;
    Result<std::vector<PeerRecord>> peersSeenSince(qint64 sinceMs) override;
    Result<qint64> peerCount() override;
    Result<qint64> nextOrdinal() override;
    Result<NearbyPeers> onlinePeersNear(const QString &address, qint64 seenSinceMs, const QString &exceptKeyId,
                                        qint64 atMost) override;
    Result<void> recordHeartbeat(const QString &keyId, const QString &state, const QString &reason,
                                 double tokensPerSecond, qint64 baseRound, qint64 innerSteps, qint64 nowMs) override;
    Result<void> spendReadiness(const QString &keyId, qint64 nextBaseRound) override;
    Result<void> countRejectedRequest(const QString &keyId) override;
    Result<qint64> recordOffence(const QString &keyId, const QString &kind, const QString &detail,
                                 qint64 nowMs, bool once) override;
    Result<void> banPeer(const QString &keyId, const QString &reason) override;
    Result<std::vector<PeerRecord>> leaderboard(int limit) override;

    Result<std::optional<RoundRecord>> currentRound() override;
    Result<std::optional<RoundRecord>> knownCurrentRound() override;
    void setSoleRoundWriterUntil(std::chrono::steady_clock::time_point until) override { m_soleRoundWriterUntil = until; }
    Result<std::optional<RoundRecord>> round(qint64 number) override;
    Result<void> saveRound(const RoundRecord &round) override;

    Result<void> addContribution(const ContributionRecord &contribution) override;
    Result<std::vector<ContributionRecord>> contributions(qint64 round, int attempt) override;
    Result<std::optional<ContributionRecord>> lastContribution(const QString &keyId) override;

    Result<void> reopenRound(qint64 abandoned, const RoundRecord &reopened) override;
    Result<void> creditPipelineStep(qint64 step, const std::vector<StepCredit> &credits) override;
    Result<void> closeRound(const RoundRecord &closed, const std::vector<ContributionRecord> &verdicts,
                            const std::optional<RoundRecord> &next) override;

    Result<void> recordLinks(const std::vector<LinkRecord> &links, qint64 forgetBeforeMs) override;
    Result<std::vector<LinkRecord>> links(qint64 sinceMs) override;

    Result<void> addCheckpoint(const CheckpointRecord &checkpoint) override;
    Result<std::optional<CheckpointRecord>> latestCheckpoint() override;
    Result<std::optional<CheckpointRecord>> checkpoint(qint64 round) override;
    Result<std::vector<CheckpointRecord>> checkpoints() override;
    Result<void> setValidationLoss(qint64 round, double loss) override;

    // SqlVerificationStore.cpp
    Result<void> addCommitments(const std::vector<CommitmentRecord> &pieces) override;
    Result<std::vector<CommitmentRecord>> commitments(qint64 round, int attempt) override;
    Result<std::vector<CommitmentRecord>> lastCommitments(const QString &keyId, qint64 beforeRound) override;
    Result<void> addUpdateReports(const std::vector<UpdateReportRecord> &reports) override;
    Result<std::vector<UpdateReportRecord>> updateReports(qint64 round, int attempt) override;
    Result<std::vector<UpdateReportRecord>> disputes(qint64 fromRound, qint64 toRound) override;
    Result<std::vector<UpdateReportRecord>> evidenceRulings(qint64 fromRound, qint64 toRound) override;
    Result<void> saveSpotCheck(const SpotCheckRecord &check) override;
    Result<std::optional<SpotCheckRecord>> spotCheck(qint64 round, const QString &memberKeyId) override;
    Result<std::vector<SpotCheckRecord>> openSpotChecks() override;
    Result<void> revokeContribution(qint64 round, int attempt, const QString &keyId) override;
    Result<void> quarantinePeer(const QString &keyId) override;
    Result<void> countVerifiedRound(const QString &keyId) override;

    // SqlAverageStore.cpp
    Result<void> addAverageReports(const std::vector<AverageReportRecord> &reports) override;
    Result<std::vector<AverageReportRecord>> averageReports(qint64 round, int attempt) override;

    Result<bool> takeLease(const QString &name, const QString &holder, qint64 nowMs, qint64 untilMs) override;
    Result<bool> recordRequest(const QString &signature, qint64 signedMs, qint64 forgetBeforeMs) override;
    Result<qint64> takeToken(const QString &bucket, double perSecond, double burst, qint64 nowMs) override;

private:
    SqlCoordinatorStore(const QString &connectionName, Dialect dialect);
    // "INSERT ... ON CONFLICT (key) DO UPDATE" of every column: SQLite's and PostgreSQL's upsert.
    static QString upsert(const QString &table, const QString &columns, const QString &key);
    // QtSql binds a null QString as SQL NULL; the text columns are NOT NULL, so empty means "".
    static QVariant text(const QString &value);
    // One database connection, the statements prepared on it, and what runs after it (re)opens.
    struct Connection {
        QSqlDatabase db;
        QHash<QString, QSqlQuery> prepared;
        QString setUp;
    };
    QSqlQuery query(const QString &sql) { return queryOn(m_main, sql); }
    QSqlQuery queryOn(Connection &connection, const QString &sql);
    // Runs the prepared query; on PostgreSQL, a statement outside a transaction whose connection
    // was lost runs again once on a new one (`query` is then that statement).
    Result<void> exec(QSqlQuery &query, const char *what) { return execOn(m_main, query, what); }
    Result<void> execOn(Connection &connection, QSqlQuery &query, const char *what);
    // PostgreSQL: whether the connection still answers, else whether a new one opened.
    bool reconnectIfLost(Connection &connection);
    bool open(Connection &connection);
    // On m_quick where it is open (PostgreSQL), else on the one connection.
    Connection &quick() { return m_quick.db.isValid() ? m_quick : m_main; }
    QSqlQuery quickQuery(const QString &sql) { return queryOn(quick(), sql); }
    Result<void> quickExec(QSqlQuery &query, const char *what) { return execOn(quick(), query, what); }
    // `sql` with one bound value, or none when `value` is empty.
    Result<std::vector<PeerRecord>> selectPeers(const QString &sql, const QVariant &value);
    Result<std::vector<RoundRecord>> selectRounds(const QString &where, qint64 value);
    Result<std::vector<CheckpointRecord>> selectCheckpoints(const QString &where, qint64 value);
    // An insert (revision 0) or an update of the revision the round names.
    Result<void> writeRound(const RoundRecord &round);
    // Peers stored before schema version 10 get the subnet of their address.
    Result<void> fillSubnets();
    Result<void> inTransaction(const std::function<Result<void>()> &work);
    Result<std::vector<CommitmentRecord>> selectCommitments(QSqlQuery &query);
    Result<std::vector<UpdateReportRecord>> selectUpdateReports(QSqlQuery &query);

    Dialect m_dialect;
    Connection m_main; // everything
    // PostgreSQL: a second connection whose commits do not wait for the disk, for what a crash
    // may lose the last moment of (requests seen, rate buckets; never credit or rounds). Every
    // request writes those; not waiting took joins from 367-411/s to 434-446/s (issue 20 note).
    Connection m_quick;
    // Statements kept prepared per connection (a fixed set, but bounded all the same).
    static constexpr qsizetype kMaxPreparedStatements = 256;
    bool m_inTransaction = false;
    // knownCurrentRound's: the current round as last read, forgotten at each write of a round.
    std::optional<RoundRecord> m_knownRound;
    std::chrono::steady_clock::time_point m_soleRoundWriterUntil;
    qint64 m_requestsForgottenMs = 0; // the last moment before which recordRequest forgot requests
    qint64 m_bucketsForgottenMs = 0;  // when takeToken last forgot full buckets
};

} // namespace swarmtrain

#include "SqliteSchema.h"

#include "SchemaSteps.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <span>
#include <string>

namespace swarmtrain {

namespace {

// Version 1: peers, rounds, contributions, checkpoints.
const char *const kVersion1[] = {
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE peers (key_id TEXT PRIMARY KEY, public_key BLOB NOT NULL, device TEXT NOT NULL,"
    " endpoint TEXT NOT NULL, reachable INTEGER NOT NULL, client_version TEXT NOT NULL, ordinal INTEGER NOT NULL,"
    " assigned_shards TEXT NOT NULL, joined_ms INTEGER NOT NULL, last_seen_ms INTEGER NOT NULL, state TEXT NOT NULL,"
    " pause_reason TEXT NOT NULL, tokens_per_s REAL NOT NULL, base_round INTEGER NOT NULL,"
    " rejected_requests INTEGER NOT NULL, credit REAL NOT NULL, tokens INTEGER NOT NULL)",
    "CREATE TABLE rounds (number INTEGER PRIMARY KEY, attempt INTEGER NOT NULL, state TEXT NOT NULL,"
    " gathering_since_ms INTEGER NOT NULL, started_ms INTEGER NOT NULL, deadline_ms INTEGER NOT NULL,"
    " finished_ms INTEGER NOT NULL, members TEXT NOT NULL, agreed_hash TEXT NOT NULL, uploader TEXT NOT NULL,"
    " val_loss REAL)",
    "CREATE TABLE contributions (round INTEGER NOT NULL, attempt INTEGER NOT NULL, key_id TEXT NOT NULL,"
    " tokens INTEGER NOT NULL, flops REAL NOT NULL, seconds REAL NOT NULL, loss REAL NOT NULL,"
    " params_hash TEXT NOT NULL, bytes_up INTEGER NOT NULL, bytes_down INTEGER NOT NULL, accepted INTEGER,"
    " credit REAL NOT NULL, received_ms INTEGER NOT NULL, PRIMARY KEY (round, attempt, key_id))",
    "CREATE INDEX contributions_by_peer ON contributions (key_id, received_ms)",
    "CREATE TABLE checkpoints (round INTEGER PRIMARY KEY, file TEXT NOT NULL, sha256 TEXT NOT NULL,"
    " bytes INTEGER NOT NULL, params_hash TEXT NOT NULL, val_loss REAL)",
};

// Version 2: the links peers measured between themselves (issue 15), one row per direction.
const char *const kVersion2[] = {
    "CREATE TABLE links (from_key TEXT NOT NULL, to_key TEXT NOT NULL, rtt_ms REAL NOT NULL,"
    " bytes_per_s REAL NOT NULL, measured_ms INTEGER NOT NULL, PRIMARY KEY (from_key, to_key))",
    "CREATE INDEX links_by_time ON links (measured_ms)",
};

// Version 3: trust (issue 16): where a peer joined from, its offences and ban, its accepted
// rounds (probation), and each offence as it happened.
const char *const kVersion3[] = {
    "ALTER TABLE peers ADD COLUMN address TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE peers ADD COLUMN offences INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE peers ADD COLUMN banned_reason TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE peers ADD COLUMN accepted_rounds INTEGER NOT NULL DEFAULT 0",
    "CREATE TABLE offences (key_id TEXT NOT NULL, at_ms INTEGER NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL)",
    "CREATE INDEX offences_by_peer ON offences (key_id, at_ms)",
};

// Version 4: verifiable contributions (issue 16): members' commitments to their updates, what
// range owners reported about senders' pieces, spot checks, and each peer's verified rounds.
const char *const kVersion4[] = {
    "ALTER TABLE peers ADD COLUMN verified_rounds INTEGER NOT NULL DEFAULT 0",
    "CREATE TABLE commitments (round INTEGER NOT NULL, attempt INTEGER NOT NULL, key_id TEXT NOT NULL,"
    " owner TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (round, attempt, key_id, owner))",
    "CREATE INDEX commitments_by_peer ON commitments (key_id, round)",
    "CREATE TABLE update_reports (round INTEGER NOT NULL, attempt INTEGER NOT NULL, reporter TEXT NOT NULL,"
    " sender TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (round, attempt, reporter, sender, kind))",
    "CREATE TABLE spot_checks (round INTEGER NOT NULL, attempt INTEGER NOT NULL, member TEXT NOT NULL,"
    " verifier TEXT NOT NULL, state TEXT NOT NULL, assigned_ms INTEGER NOT NULL, update_file TEXT NOT NULL,"
    " update_sha256 TEXT NOT NULL,"
    " cosine REAL, relative_norm REAL, finished_ms INTEGER NOT NULL, detail TEXT NOT NULL,"
    " PRIMARY KEY (round, member))",
    "CREATE INDEX spot_checks_by_state ON spot_checks (state, assigned_ms)",
};

// Version 5: the range averages each member applied, by range begin (issue 16: the new state is
// recomputed from the averages owners and checkers agree on).
const char *const kVersion5[] = {
    "CREATE TABLE average_reports (round INTEGER NOT NULL, attempt INTEGER NOT NULL, key_id TEXT NOT NULL,"
    " range_begin INTEGER NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (round, attempt, key_id, range_begin))",
};

// Version 6: quarantine (issue 16): a member the range owners left out stays on probation until
// a spot check agrees with its work.
const char *const kVersion6[] = {
    "ALTER TABLE peers ADD COLUMN quarantined INTEGER NOT NULL DEFAULT 0",
};

// Version 7: the inner steps a peer says it trained on its state (issue 18: time-budgeted rounds).
const char *const kVersion7[] = {
    "ALTER TABLE peers ADD COLUMN inner_steps INTEGER NOT NULL DEFAULT 0",
};

// Version 8: the share of the swarm's work an asynchronous round's members hold, which scales
// the round's update, and how far the round moves the inner schedule (issue 18).
const char *const kVersion8[] = {
    "ALTER TABLE rounds ADD COLUMN share REAL NOT NULL DEFAULT 1",
    "ALTER TABLE rounds ADD COLUMN schedule_advance INTEGER NOT NULL DEFAULT 0",
};

// Version 9: the display name a peer chose for the leaderboard (issue 19).
const char *const kVersion9[] = {
    "ALTER TABLE peers ADD COLUMN display_name TEXT NOT NULL DEFAULT ''",
};

// Version 10: a join reads no more than it needs (issue 20): the peer's subnet (PeerAddress.h)
// stored with it, and indexes for the next ordinal, the peers online per address and subnet,
// and the leaderboard. Subnets of peers stored before are filled in when the store opens.
const char *const kVersion10[] = {
    "ALTER TABLE peers ADD COLUMN subnet TEXT NOT NULL DEFAULT ''",
    "CREATE INDEX peers_by_ordinal ON peers (ordinal)",
    "CREATE INDEX peers_by_address ON peers (address, last_seen_ms)",
    "CREATE INDEX peers_by_subnet ON peers (subnet, last_seen_ms)",
    "CREATE INDEX peers_by_credit ON peers (credit DESC, ordinal)",
};

// Version 11: several coordinator instances on one database (issue 20; the same tables as
// version 2 of the PostgreSQL schema, so that both stores run the same statements): a round's
// revision, which a write must name (two instances never both move a round), the lease of the
// instance that runs the timed work, the signed requests seen (replay protection), the rate
// limits' token buckets, and the peers by when they were last seen (the timed work reads the
// online ones only).
const char *const kVersion11[] = {
    "ALTER TABLE rounds ADD COLUMN revision INTEGER NOT NULL DEFAULT 1",
    "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until_ms INTEGER NOT NULL)",
    "CREATE TABLE seen_requests (signature TEXT PRIMARY KEY, signed_ms INTEGER NOT NULL)",
    "CREATE INDEX seen_requests_by_time ON seen_requests (signed_ms)",
    "CREATE INDEX peers_by_last_seen ON peers (last_seen_ms)",
    "CREATE TABLE rate_buckets (bucket TEXT PRIMARY KEY, tokens REAL NOT NULL, updated_ms INTEGER NOT NULL,"
    " version INTEGER NOT NULL)",
    "CREATE INDEX rate_buckets_by_time ON rate_buckets (updated_ms)",
};

// Version 12: the coordinator's ruling on an owner's evidence names the average it ruled on
// (issue 43): update reports get a detail.
const char *const kVersion12[] = {
    "ALTER TABLE update_reports ADD COLUMN detail TEXT NOT NULL DEFAULT ''",
};

// Version 13: the seed each round's range checkers are drawn from (issue 43).
const char *const kVersion13[] = {
    "ALTER TABLE rounds ADD COLUMN check_seed INTEGER NOT NULL DEFAULT 0",
};

const std::span<const char *const> kSteps[] = {kVersion1, kVersion2,  kVersion3,  kVersion4,  kVersion5,
                                               kVersion6, kVersion7,  kVersion8,  kVersion9,  kVersion10,
                                               kVersion11, kVersion12, kVersion13};
static_assert(std::size(kSteps) == kSqliteSchemaVersion);

Result<void> upgrade(QSqlDatabase &db, int from)
{
    for (int version = from; version < kSqliteSchemaVersion; ++version) {
        for (const char *statement : kSteps[version]) {
            const QString sql = QString::fromLatin1(statement);
            if (Result<void> done = runSchemaStatement(db, sql, "upgrading the schema"); !done)
                return done;
        }
    }
    const QString set = QStringLiteral("PRAGMA user_version = %1").arg(kSqliteSchemaVersion);
    return runSchemaStatement(db, set, "setting the schema version");
}

} // namespace

Result<void> migrateSqliteSchema(QSqlDatabase &db)
{
    QSqlQuery versionQuery(db);
    if (!versionQuery.exec(QStringLiteral("PRAGMA user_version")))
        return makeError("reading the schema version failed: " + versionQuery.lastError().text().toStdString());
    const int version = versionQuery.next() ? versionQuery.value(0).toInt() : 0;
    if (version == kSqliteSchemaVersion)
        return {};
    if (version > kSqliteSchemaVersion || version < 0) {
        return makeError("the database has schema version " + std::to_string(version) + "; this coordinator knows "
                         + std::to_string(kSqliteSchemaVersion) + " (made by a newer version?)");
    }
    return inSchemaTransaction(db, [&] { return upgrade(db, version); });
}

} // namespace swarmtrain

#include "PostgresSchema.h"

#include "SchemaSteps.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <span>
#include <string>

namespace swarmtrain {

namespace {

// Version 1: everything version 10 of the SQLite schema holds (SqliteSchema.cpp says what each
// table is for). Booleans stay integers, as there, so that both stores bind the same values.
// contributions.arrival orders reports of the same millisecond as SQLite's rowid does.
const char *const kVersion1[] = {
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE peers (key_id TEXT PRIMARY KEY, public_key BYTEA NOT NULL, device TEXT NOT NULL,"
    " endpoint TEXT NOT NULL, reachable INTEGER NOT NULL, client_version TEXT NOT NULL, ordinal BIGINT NOT NULL,"
    " assigned_shards TEXT NOT NULL, joined_ms BIGINT NOT NULL, last_seen_ms BIGINT NOT NULL, state TEXT NOT NULL,"
    " pause_reason TEXT NOT NULL, tokens_per_s DOUBLE PRECISION NOT NULL, base_round BIGINT NOT NULL,"
    " rejected_requests BIGINT NOT NULL, credit DOUBLE PRECISION NOT NULL, tokens BIGINT NOT NULL,"
    " address TEXT NOT NULL DEFAULT '', offences BIGINT NOT NULL DEFAULT 0, banned_reason TEXT NOT NULL DEFAULT '',"
    " accepted_rounds BIGINT NOT NULL DEFAULT 0, verified_rounds BIGINT NOT NULL DEFAULT 0,"
    " quarantined INTEGER NOT NULL DEFAULT 0, inner_steps BIGINT NOT NULL DEFAULT 0,"
    " display_name TEXT NOT NULL DEFAULT '', subnet TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX peers_by_ordinal ON peers (ordinal)",
    "CREATE INDEX peers_by_address ON peers (address, last_seen_ms)",
    "CREATE INDEX peers_by_subnet ON peers (subnet, last_seen_ms)",
    "CREATE INDEX peers_by_credit ON peers (credit DESC, ordinal)",
    "CREATE TABLE rounds (number BIGINT PRIMARY KEY, attempt INTEGER NOT NULL, state TEXT NOT NULL,"
    " gathering_since_ms BIGINT NOT NULL, started_ms BIGINT NOT NULL, deadline_ms BIGINT NOT NULL,"
    " finished_ms BIGINT NOT NULL, members TEXT NOT NULL, agreed_hash TEXT NOT NULL, uploader TEXT NOT NULL,"
    " val_loss DOUBLE PRECISION, share DOUBLE PRECISION NOT NULL DEFAULT 1,"
    " schedule_advance BIGINT NOT NULL DEFAULT 0)",
    "CREATE TABLE contributions (round BIGINT NOT NULL, attempt INTEGER NOT NULL, key_id TEXT NOT NULL,"
    " tokens BIGINT NOT NULL, flops DOUBLE PRECISION NOT NULL, seconds DOUBLE PRECISION NOT NULL,"
    " loss DOUBLE PRECISION NOT NULL, params_hash TEXT NOT NULL, bytes_up BIGINT NOT NULL, bytes_down BIGINT NOT NULL,"
    " accepted INTEGER, credit DOUBLE PRECISION NOT NULL, received_ms BIGINT NOT NULL,"
    " arrival BIGSERIAL, PRIMARY KEY (round, attempt, key_id))",
    "CREATE INDEX contributions_by_peer ON contributions (key_id, received_ms)",
    "CREATE TABLE checkpoints (round BIGINT PRIMARY KEY, file TEXT NOT NULL, sha256 TEXT NOT NULL,"
    " bytes BIGINT NOT NULL, params_hash TEXT NOT NULL, val_loss DOUBLE PRECISION)",
    "CREATE TABLE links (from_key TEXT NOT NULL, to_key TEXT NOT NULL, rtt_ms DOUBLE PRECISION NOT NULL,"
    " bytes_per_s DOUBLE PRECISION NOT NULL, measured_ms BIGINT NOT NULL, PRIMARY KEY (from_key, to_key))",
    "CREATE INDEX links_by_time ON links (measured_ms)",
    "CREATE TABLE offences (key_id TEXT NOT NULL, at_ms BIGINT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL)",
    "CREATE INDEX offences_by_peer ON offences (key_id, at_ms)",
    "CREATE TABLE commitments (round BIGINT NOT NULL, attempt INTEGER NOT NULL, key_id TEXT NOT NULL,"
    " owner TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (round, attempt, key_id, owner))",
    "CREATE INDEX commitments_by_peer ON commitments (key_id, round)",
    "CREATE TABLE update_reports (round BIGINT NOT NULL, attempt INTEGER NOT NULL, reporter TEXT NOT NULL,"
    " sender TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (round, attempt, reporter, sender, kind))",
    "CREATE TABLE spot_checks (round BIGINT NOT NULL, attempt INTEGER NOT NULL, member TEXT NOT NULL,"
    " verifier TEXT NOT NULL, state TEXT NOT NULL, assigned_ms BIGINT NOT NULL, update_file TEXT NOT NULL,"
    " update_sha256 TEXT NOT NULL, cosine DOUBLE PRECISION, relative_norm DOUBLE PRECISION,"
    " finished_ms BIGINT NOT NULL, detail TEXT NOT NULL, PRIMARY KEY (round, member))",
    "CREATE INDEX spot_checks_by_state ON spot_checks (state, assigned_ms)",
    "CREATE TABLE average_reports (round BIGINT NOT NULL, attempt INTEGER NOT NULL, key_id TEXT NOT NULL,"
    " range_begin BIGINT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (round, attempt, key_id, range_begin))",
};

// Version 2: several instances on one database (version 11 of the SQLite schema).
const char *const kVersion2[] = {
    "ALTER TABLE rounds ADD COLUMN revision BIGINT NOT NULL DEFAULT 1",
    "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until_ms BIGINT NOT NULL)",
    "CREATE TABLE seen_requests (signature TEXT PRIMARY KEY, signed_ms BIGINT NOT NULL)",
    "CREATE INDEX seen_requests_by_time ON seen_requests (signed_ms)",
    "CREATE INDEX peers_by_last_seen ON peers (last_seen_ms)",
    "CREATE TABLE rate_buckets (bucket TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL,"
    " updated_ms BIGINT NOT NULL, version BIGINT NOT NULL)",
    "CREATE INDEX rate_buckets_by_time ON rate_buckets (updated_ms)",
};

// Version 3: rulings on evidence name the average ruled on (version 12 of the SQLite schema).
const char *const kVersion3[] = {
    "ALTER TABLE update_reports ADD COLUMN detail TEXT NOT NULL DEFAULT ''",
};

// Version 4: the seed each round's range checkers are drawn from (version 13 of the SQLite schema).
const char *const kVersion4[] = {
    "ALTER TABLE rounds ADD COLUMN check_seed BIGINT NOT NULL DEFAULT 0",
};

const std::span<const char *const> kSteps[] = {kVersion1, kVersion2, kVersion3, kVersion4};
static_assert(std::size(kSteps) == kPostgresSchemaVersion);

// Any number: the advisory lock of the schema migration, in the database's lock space.
constexpr qint64 kMigrationLock = 0x5357'4d54'0001; // "SWMT" 1

Result<int> storedVersion(QSqlDatabase &db)
{
    const QString create = QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    if (Result<void> made = runSchemaStatement(db, create, "creating the schema version table"); !made)
        return made.error();
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT version FROM schema_version")))
        return makeError("reading the schema version failed: " + query.lastError().text().toStdString());
    return query.next() ? query.value(0).toInt() : 0;
}

Result<void> upgrade(QSqlDatabase &db, int target)
{
    // CREATE TABLE IF NOT EXISTS would print a NOTICE on every start but the first.
    if (Result<void> quiet =
            runSchemaStatement(db, QStringLiteral("SET LOCAL client_min_messages TO warning"), "setting the log level");
        !quiet)
        return quiet;
    const QString lock = QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(kMigrationLock);
    if (Result<void> locked = runSchemaStatement(db, lock, "waiting for another instance's migration"); !locked)
        return locked;
    Result<int> version = storedVersion(db);
    if (!version)
        return version.error();
    if (*version > kPostgresSchemaVersion || *version < 0) {
        return makeError("the database has schema version " + std::to_string(*version) + "; this coordinator knows "
                         + std::to_string(kPostgresSchemaVersion) + " (made by a newer version?)");
    }
    for (int step = *version; step < target; ++step) {
        for (const char *statement : kSteps[step]) {
            const QString sql = QString::fromLatin1(statement);
            if (Result<void> done = runSchemaStatement(db, sql, "upgrading the schema"); !done)
                return done;
        }
    }
    if (*version >= target)
        return {};
    const QString clear = QStringLiteral("DELETE FROM schema_version");
    if (Result<void> cleared = runSchemaStatement(db, clear, "setting the schema version"); !cleared)
        return cleared;
    const QString set = QStringLiteral("INSERT INTO schema_version (version) VALUES (%1)").arg(target);
    return runSchemaStatement(db, set, "setting the schema version");
}

} // namespace

Result<void> migratePostgresSchema(QSqlDatabase &db, int target)
{
    return inSchemaTransaction(db, [&] { return upgrade(db, target); });
}

} // namespace swarmtrain

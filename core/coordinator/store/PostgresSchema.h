#pragma once

#include "Result.h"

class QSqlDatabase;

namespace swarmtrain {

// The coordinator's schema on PostgreSQL: the tables of the SQLite schema with PostgreSQL's
// types (BIGINT for every integer, since times are in milliseconds; DOUBLE PRECISION, BYTEA),
// one step per version, the version in the table schema_version.
inline constexpr int kPostgresSchemaVersion = 4;

// Brings the database to `target` (kPostgresSchemaVersion unless a test asks for an older one)
// in one transaction, holding an advisory lock so that instances started together migrate it
// once; a database made by a newer coordinator is refused, not touched.
Result<void> migratePostgresSchema(QSqlDatabase &db, int target = kPostgresSchemaVersion);

} // namespace swarmtrain

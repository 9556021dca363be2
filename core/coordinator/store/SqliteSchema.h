#pragma once

#include "Result.h"

class QSqlDatabase;

namespace swarmtrain {

// The coordinator database's schema, one step per version; a new database runs them all.
inline constexpr int kSqliteSchemaVersion = 13;

// Brings the database to kSqliteSchemaVersion in one transaction (PRAGMA user_version says
// where it is); a database made by a newer coordinator is refused, not touched.
Result<void> migrateSqliteSchema(QSqlDatabase &db);

} // namespace swarmtrain

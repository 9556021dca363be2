#pragma once

#include "Result.h"

#include <QString>

#include <functional>

class QSqlDatabase;

namespace swarmtrain {

// What the SQLite and PostgreSQL schema migrations share.
// Runs one statement; the error names `what` and the database's reason.
Result<void> runSchemaStatement(QSqlDatabase &db, const QString &sql, const char *what);
// `work` in one transaction: committed when it succeeds, rolled back, changing nothing, when it fails.
Result<void> inSchemaTransaction(QSqlDatabase &db, const std::function<Result<void>()> &work);

} // namespace swarmtrain

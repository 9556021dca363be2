#include "SchemaSteps.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <string>

namespace swarmtrain {

Result<void> runSchemaStatement(QSqlDatabase &db, const QString &sql, const char *what)
{
    QSqlQuery query(db);
    if (!query.exec(sql))
        return makeError(std::string(what) + " failed: " + query.lastError().text().toStdString());
    return {};
}

Result<void> inSchemaTransaction(QSqlDatabase &db, const std::function<Result<void>()> &work)
{
    if (!db.transaction())
        return makeError("cannot begin a transaction: " + db.lastError().text().toStdString());
    if (Result<void> done = work(); !done) {
        db.rollback();
        return done;
    }
    if (!db.commit()) {
        const std::string why = db.lastError().text().toStdString();
        db.rollback();
        return makeError("cannot commit the schema: " + why);
    }
    return {};
}

} // namespace swarmtrain

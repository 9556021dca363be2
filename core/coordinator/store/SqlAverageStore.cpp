// SqlCoordinatorStore's part for the range averages members applied (issue 16).
#include "SqlCoordinatorStore.h"

#include <QSqlQuery>
#include <QVariant>

namespace swarmtrain {

Result<void> SqlCoordinatorStore::addAverageReports(const std::vector<AverageReportRecord> &reports)
{
    return inTransaction([&]() -> Result<void> {
        for (const AverageReportRecord &report : reports) {
            QSqlQuery q = query(QStringLiteral("INSERT INTO average_reports (round, attempt, key_id, range_begin, sha256)"
                                               " VALUES (?, ?, ?, ?, ?)"));
            q.addBindValue(report.round);
            q.addBindValue(report.attempt);
            q.addBindValue(text(report.keyId));
            q.addBindValue(report.begin);
            q.addBindValue(text(report.sha256));
            if (Result<void> done = exec(q, "saving a range average report"); !done)
                return done;
        }
        return {};
    });
}

Result<std::vector<AverageReportRecord>> SqlCoordinatorStore::averageReports(qint64 round, int attempt)
{
    QSqlQuery q = query(QStringLiteral("SELECT round, attempt, key_id, range_begin, sha256 FROM average_reports"
                                       " WHERE round = ? AND attempt = ? ORDER BY key_id, range_begin"));
    q.addBindValue(round);
    q.addBindValue(attempt);
    if (Result<void> done = exec(q, "reading range average reports"); !done)
        return done.error();
    std::vector<AverageReportRecord> list;
    while (q.next()) {
        list.push_back({q.value(0).toLongLong(), q.value(1).toInt(), q.value(2).toString(), q.value(3).toLongLong(),
                        q.value(4).toString()});
    }
    return list;
}

} // namespace swarmtrain

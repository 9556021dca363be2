#pragma once

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

namespace swarmtrain::test {

// Runs `edit` on the coordinator database `file` over a connection of its own, closed after.
inline void editDatabase(const std::filesystem::path &file, const std::function<void(QSqlQuery &)> &edit)
{
    const QString name = QStringLiteral("edit-older-database");
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(QString::fromStdString(file.string()));
        ASSERT_TRUE(db.open());
        QSqlQuery query(db);
        edit(query);
        query.finish();
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
}

// What schema version 12 left: rounds without the seed of their range checkers.
inline void undoSchemaVersion13(QSqlQuery &query)
{
    ASSERT_TRUE(query.exec(QStringLiteral("ALTER TABLE rounds DROP COLUMN check_seed")));
}

// What schema version 11 left: update reports without a detail.
inline void undoSchemaVersion12(QSqlQuery &query)
{
    ASSERT_TRUE(query.exec(QStringLiteral("ALTER TABLE update_reports DROP COLUMN detail")));
}

// What schema version 10 left: no round revisions, leases, requests seen, rate buckets or index by last seen.
inline void undoSchemaVersion11(QSqlQuery &query)
{
    ASSERT_TRUE(query.exec(QStringLiteral("ALTER TABLE rounds DROP COLUMN revision")));
    ASSERT_TRUE(query.exec(QStringLiteral("DROP INDEX peers_by_last_seen")));
    for (const char *table : {"leases", "seen_requests", "rate_buckets"})
        ASSERT_TRUE(query.exec(QStringLiteral("DROP TABLE %1").arg(QLatin1StringView(table))));
}

// What schema version 9 left: no peers.subnet, none of version 10's indexes.
inline void undoSchemaVersion10(QSqlQuery &query)
{
    for (const char *index : {"peers_by_ordinal", "peers_by_address", "peers_by_subnet", "peers_by_credit"})
        ASSERT_TRUE(query.exec(QStringLiteral("DROP INDEX %1").arg(QLatin1StringView(index))));
    ASSERT_TRUE(query.exec(QStringLiteral("ALTER TABLE peers DROP COLUMN subnet")));
}

// Makes `file` a database as coordinators of schema version 9 left it.
inline void makeVersion9(const std::filesystem::path &file)
{
    editDatabase(file, [](QSqlQuery &query) {
        undoSchemaVersion13(query);
        undoSchemaVersion12(query);
        undoSchemaVersion11(query);
        undoSchemaVersion10(query);
        ASSERT_TRUE(query.exec(QStringLiteral("PRAGMA user_version = 9")));
    });
}

} // namespace swarmtrain::test

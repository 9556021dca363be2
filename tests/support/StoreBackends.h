#pragma once

#include "SqlCoordinatorStore.h"
#include "TempDir.h"
#include "TemporaryPostgres.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace swarmtrain::test {

enum class StoreBackend { Sqlite, Postgres };

inline std::string storeBackendName(const ::testing::TestParamInfo<StoreBackend> &info)
{
    return info.param == StoreBackend::Sqlite ? "Sqlite" : "Postgres";
}

// A fixture for tests every CoordinatorStore must pass: one SQLite file, or one database on a real
// PostgreSQL server of the test's own (skipped, with the reason, where none can be started). open()
// opens another store on the same database each time, as a restarted coordinator or a second
// instance does.
class StoreBackendTest : public ::testing::TestWithParam<StoreBackend> {
protected:
    void SetUp() override
    {
        if (GetParam() != StoreBackend::Postgres)
            return;
        if (const std::string why = TemporaryPostgres::unavailableReason(); !why.empty())
            GTEST_SKIP() << why;
        postgres = std::make_unique<TemporaryPostgres>(dir.path() / "postgres");
        ASSERT_TRUE(postgres->start()) << postgres->error();
    }

    std::unique_ptr<SqlCoordinatorStore> open(int postgresSchemaVersion = 0)
    {
        Result<std::unique_ptr<SqlCoordinatorStore>> store =
            GetParam() == StoreBackend::Sqlite
                ? SqlCoordinatorStore::openSqlite(dir.path() / "c.db")
                : SqlCoordinatorStore::openPostgres(QString::fromStdString(postgres->url()), postgresSchemaVersion);
        EXPECT_TRUE(store.ok()) << (store ? "" : store.error().message);
        return store ? std::move(store).value() : nullptr;
    }

    TempDir dir;
    std::unique_ptr<TemporaryPostgres> postgres;
};

#define SWARMTRAIN_ON_EVERY_STORE(suite)                                                                               \
    INSTANTIATE_TEST_SUITE_P(, suite,                                                                                  \
                             ::testing::Values(swarmtrain::test::StoreBackend::Sqlite,                                  \
                                               swarmtrain::test::StoreBackend::Postgres),                               \
                             swarmtrain::test::storeBackendName)

} // namespace swarmtrain::test

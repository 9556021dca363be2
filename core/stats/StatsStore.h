#pragma once

#include "Result.h"
#include "StatsRecords.h"

#include <QString>

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

namespace swarmtrain {

// The client's record of contributed work: stats.db, SQLite in WAL mode with
// synchronous=FULL, so every call that returned success survives a crash or a power cut
// (DESIGN.md "Data that must not be lost"). Contributions are rare (one a round), so the
// fsync per commit costs nothing noticeable.
//
// Threads: Qt lets a database connection be used only on the thread that opened it, so a
// StatsStore belongs to the thread that called open() (the client's worker); others get
// figures from it through queued signals. Several StatsStores (one per process, say) may open
// the same file: SQLite's locks and a busy timeout serialize them.
//
// Timestamps are parameters, never read from the clock here, so tests control time.
class StatsStore {
public:
    static constexpr int kSchemaVersion = 1;

    struct Options {
        // Older events are pruned so the file does not grow without bound on a PC that
        // pauses and resumes many times a day. Contributions are never pruned.
        int maxEvents = 10000;
    };

    // Opens or creates the database (and its folder). Refuses, leaving it untouched, a file
    // that is not SQLite, a SQLite file of another application, or one from a newer
    // SwarmTrain; an unwritable location is an error too.
    static Result<std::unique_ptr<StatsStore>> open(const std::filesystem::path &file, Options options);
    static Result<std::unique_ptr<StatsStore>> open(const std::filesystem::path &file) { return open(file, {}); }

    ~StatsStore();
    StatsStore(const StatsStore &) = delete;
    StatsStore &operator=(const StatsStore &) = delete;

    // A (swarm, round) is recorded once; recording it again is an error.
    Result<void> recordContribution(const Contribution &contribution);
    // The coordinator's verdict; may be given again (a correction replaces it).
    Result<void> markAccepted(const QString &swarm, std::int64_t round, bool accepted, double credit);
    Result<void> recordEvent(const QString &kind, const QString &message, const QDateTime &at);

    Result<StatsTotals> totals() const;
    // `days` calendar days ending with the day of `now`, oldest first, empty days included.
    // Days are those of `now`'s time zone (the PC's local time in the client); a contribution
    // counts on the day it finished.
    Result<std::vector<DailyStats>> daily(int days, const QDateTime &now) const;
    // Newest first.
    Result<std::vector<StatsEvent>> recentEvents(int count) const;
    Result<std::vector<RecordedContribution>> recentContributions(int count) const;
    Result<std::optional<RecordedContribution>> contribution(const QString &swarm, std::int64_t round) const;

    // PRAGMA integrity_check; an error names what SQLite found.
    Result<void> checkIntegrity() const;

    const std::filesystem::path &file() const { return m_file; }

private:
    StatsStore(std::filesystem::path file, Options options, QString connectionName);
    Result<void> initialize();
    // The schema version of a file that is ours (0: new and empty); an error for anyone else's.
    Result<int> checkOwnership();
    Result<void> createSchema();

    std::filesystem::path m_file;
    Options m_options;
    QString m_connectionName;
};

} // namespace swarmtrain

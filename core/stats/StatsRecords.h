#pragma once

#include <QDate>
#include <QDateTime>
#include <QString>

#include <cstdint>

namespace swarmtrain {

// One round of work this PC did, as the client measured it.
struct Contribution {
    std::int64_t round = 0;
    QString swarm;
    QDateTime startedAt;
    QDateTime finishedAt;
    std::int64_t tokens = 0;
    double flops = 0.0;
    double computeSeconds = 0.0;
    std::int64_t bytesUp = 0;
    std::int64_t bytesDown = 0;
};

// The coordinator's verdict on a contribution; it arrives rounds later, or never.
enum class Verdict { Pending, Accepted, Rejected };

struct RecordedContribution {
    Contribution contribution;
    Verdict verdict = Verdict::Pending;
    double credit = 0.0;
};

struct StatsTotals {
    std::int64_t contributions = 0;
    std::int64_t tokens = 0;
    double flops = 0.0;
    double computeHours = 0.0;
    std::int64_t acceptedRounds = 0;
    std::int64_t rejectedRounds = 0;
    double credit = 0.0; // accepted rounds only
    std::int64_t bytesUp = 0;
    std::int64_t bytesDown = 0;

    // Another stats.db's, for a client that trains on several devices (WorkerGroup).
    StatsTotals &operator+=(const StatsTotals &other)
    {
        contributions += other.contributions;
        tokens += other.tokens;
        flops += other.flops;
        computeHours += other.computeHours;
        acceptedRounds += other.acceptedRounds;
        rejectedRounds += other.rejectedRounds;
        credit += other.credit;
        bytesUp += other.bytesUp;
        bytesDown += other.bytesDown;
        return *this;
    }
};

// One calendar day of the dashboard's chart.
struct DailyStats {
    QDate day;
    double computeSeconds = 0.0;
    std::int64_t tokens = 0;
    double credit = 0.0; // accepted rounds only

    DailyStats &operator+=(const DailyStats &other) // the same day's, from another stats.db
    {
        computeSeconds += other.computeSeconds;
        tokens += other.tokens;
        credit += other.credit;
        return *this;
    }
};

// Paused, resumed, errors: what the log page and the dashboard's history show.
struct StatsEvent {
    std::int64_t id = 0;
    QDateTime at;
    QString kind;
    QString message;
};

} // namespace swarmtrain

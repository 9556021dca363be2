// The StatsStore crash test's child: records one contribution after another and prints
// "committed <round>" once each is recorded, until the test kills it with SIGKILL.
#include "StatsStore.h"

#include <cstdint>
#include <cstdio>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s STATS_DB\n", argv[0]);
        return 2;
    }
    auto store = swarmtrain::StatsStore::open(argv[1]);
    if (!store.ok()) {
        std::fprintf(stderr, "%s\n", store.error().message.c_str());
        return 1;
    }
    // A bound, so an orphan (its parent gone without killing it) stops by itself.
    const std::int64_t lastRound = 100000;
    const QDateTime start = QDateTime::fromMSecsSinceEpoch(1700000000000, Qt::UTC);
    for (std::int64_t round = 1; round <= lastRound; ++round) {
        swarmtrain::Contribution c;
        c.round = round;
        c.swarm = QStringLiteral("crash-test");
        c.startedAt = start.addSecs(60 * round);
        c.finishedAt = start.addSecs(60 * round + 45);
        c.tokens = 1000 * round;
        c.flops = 1e12;
        c.computeSeconds = 45.0;
        c.bytesUp = 4096;
        c.bytesDown = 8192;
        if (auto recorded = (*store)->recordContribution(c); !recorded.ok()) {
            std::fprintf(stderr, "%s\n", recorded.error().message.c_str());
            return 1;
        }
        // Only now is the round durable; the test expects to find every round printed here.
        if (std::printf("committed %lld\n", static_cast<long long>(round)) < 0 || std::fflush(stdout) != 0)
            return 1;
    }
    return 0;
}

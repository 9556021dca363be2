// Two colluding range partners among three owners (issue 43): one honest `swarmtrain --headless`
// client and two swarmtrain-hostile `colluder`s. With three owners the checker and the referee
// of the honest owner's range are the two colluders every round: as its checker one disputes the
// honest average with its own (x -4), as its referee the other rules for the checker, and every
// member that follows the referee applies the poisoned average. With the coordinator's rulings
// the honest owner's evidence decides instead: the coordinator upholds its average, the honest
// owner applies it, the colluders, who applied their own, are left out of the round's vote and
// counted an offence: they end with no credit (and, with an offence each round, banned at the
// close of the last). Compared with the same three keys all honest, and with the rulings off
// (--no-range-rulings), where the poison gets in. Prints:
//   ATTACK colluding-partners owners=3 colluders=2 framed_rounds=8 upheld=8 honest_banned=no
//          colluders_banned=yes colluder_offences=8,8 colluder_credit=0 loss_delta=-0.26%
//          loss_delta_without_rulings=+426.08%
#include "AttackedSwarm.h"

#include <QJsonObject>

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <optional>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kColluders = 2;
// The loss compared is the state after this many rounds. The colluders frame the honest owner
// in each of them and are banned at the close of the last (their offences reach --ban-after), so
// every compared round has the same three members in every run.
constexpr qint64 kRounds = 8;

struct SwarmRun {
    double loss = 0.0;
    int upheld = 0;                      // rounds in which the honest owner's evidence held
    bool colludersBanned = false;
    std::vector<int> colluderOffences;   // by colluder
    double colluderCredit = -1.0;        // the colluders' on the leaderboard, once banned
    std::optional<double> honestCredit;
    std::string logs;
};

class ColludingPartnersTest : public test::AttackedSwarmTest {
protected:
    // Client 0 honest; clients 1 and 2 honest too, or the colluders; the coordinator's rulings on.
    SwarmRun run(const std::string &name, bool attacked, bool rulings = true)
    {
        Swarm swarm;
        // No probation: the colluders are established at once and own ranges, as colluders that
        // had earned their standing would. Three peers for a round, equal ranges and no spot
        // checks, as in LyingOwnerTest: the runs' rounds are the same but for the attack.
        // A deadline with room for a busy machine: a member waits for the coordinator's ruling on
        // a disputed range for up to half the round's remaining time (a round ends once everyone
        // reported, so it costs an idle run nothing).
        std::vector<std::string> flags{"--min-peers", std::to_string(kColluders + 1), "--probation-rounds", "0",
                                       "--ban-after", std::to_string(kRounds), "--range-split", "equal",
                                       "--spot-check-rate", "0"};
        if (!rulings)
            flags.push_back("--no-range-rulings");
        startCoordinator(swarm, name, flags);
        for (std::size_t i = 0; i <= kColluders; ++i)
            join(swarm, i > 0 && attacked ? "colluder" : "", true);

        SwarmRun result;
        std::optional<double> loss;
        const bool done = watchStatus(
            swarm,
            [&](const QJsonObject &answer) {
                if (!loss)
                    loss = test::validationLossAt(answer, kRounds);
                result.honestCredit = test::leaderboardCredit(answer, identity(0).keyId());
                if (!attacked || !rulings)
                    return loss.has_value();
                result.colluderCredit = 0.0;
                for (std::size_t i = 1; i <= kColluders; ++i)
                    result.colluderCredit += test::leaderboardCredit(answer, identity(i).keyId()).value_or(0.0);
                return loss && result.colluderCredit == 0.0;
            },
            780s);
        EXPECT_TRUE(done) << swarm.logs();
        // Each round a colluder applies its own average against the ruling is an offence; one
        // that skips the range instead (its partner's ruling late, on a busy machine) is merely
        // not accepted. Banned at --ban-after offences.
        const std::string coordinatorLog = swarm.coordinator.errors();
        result.colludersBanned = attacked && rulings;
        for (std::size_t i = 1; i <= kColluders && attacked; ++i) {
            const std::string key = identity(i).keyId().toStdString();
            result.colluderOffences.push_back(countOf(coordinatorLog, " of " + key + " ("));
            result.colludersBanned = result.colludersBanned && coordinatorLog.find("banned " + key) != std::string::npos;
        }
        result.loss = loss.value_or(0.0);
        result.upheld = countOf(swarm.clients[0]->errors(), "the coordinator upheld this peer's average against its checker");
        if (attacked && rulings)
            expectHonestUnharmed(swarm, swarm.logs());
        result.logs = swarm.logs();
        leave(swarm, result.logs);
        return result;
    }
};

} // namespace

TEST_F(ColludingPartnersTest, TwoColludersAmongThreeOwnersCannotDecideTheHonestOwnersRange)
{
    const SwarmRun clean = run("clean", false);
    ASSERT_GT(clean.loss, 0.0) << clean.logs;
    EXPECT_EQ(clean.upheld, 0) << "no dispute among honest owners\n" << clean.logs;
    const SwarmRun attacked = run("colluders", true);
    const SwarmRun unruled = run("colluders-without-rulings", true, false);
    const double delta = attacked.loss / clean.loss - 1.0, unruledDelta = unruled.loss / clean.loss - 1.0;
    std::cout << "the same three keys, all honest: validation loss " << clean.loss << " after " << kRounds << " rounds"
              << std::endl;
    std::cout << "ATTACK colluding-partners owners=" << kColluders + 1 << " colluders=" << kColluders
              << " framed_rounds=" << attacked.upheld << " upheld=" << attacked.upheld
              << " honest_banned=no colluders_banned=" << (attacked.colludersBanned ? "yes" : "no") << " colluder_offences="
              << attacked.colluderOffences.at(0) << "," << attacked.colluderOffences.at(1)
              << " colluder_credit=" << attacked.colluderCredit << " loss_delta=" << test::signedPercent(delta)
              << " loss_delta_without_rulings=" << test::signedPercent(unruledDelta) << std::endl;
    // Every round the colluders are the honest owner's checker and referee, and every round its
    // evidence held.
    EXPECT_GE(attacked.upheld, kRounds) << attacked.logs;
    EXPECT_EQ(attacked.colluderCredit, 0.0) << attacked.logs;
    for (const int offences : attacked.colluderOffences)
        EXPECT_GE(offences, 1) << "each colluder is named\n" << attacked.logs;
    ASSERT_TRUE(attacked.honestCredit.has_value()) << attacked.logs;
    EXPECT_GT(*attacked.honestCredit, 0.0);
    EXPECT_LT(std::abs(delta), 0.01) << "validation loss " << attacked.loss << " against " << clean.loss << attacked.logs;
    // The defence switched off: the referee's word puts the colluders' average in.
    EXPECT_GT(unruledDelta, 0.01) << "validation loss " << unruled.loss << " against " << clean.loss << unruled.logs;
}

// A lying range owner (issue 16): three honest `swarmtrain --headless` clients and one
// swarmtrain-hostile that owns a range like them but returns a constant as that range's
// "average". Each range has a second owner, its checker, which recomputes the average from the
// same pieces: every member skips the liar's range, the checker and the liar report each other,
// and since who checks whom rotates each round, the liar is the one member disputed by several
// different checkers. The coordinator counts that as an offence, bans the liar, and a ban takes
// its credit. Prints:
//   ATTACK lying-owner detected=yes banned_after=4-rounds loss_delta=-0.84%
#include "AttackedSwarm.h"
#include "CoordinatorClient.h"

#include <QJsonArray>
#include <QJsonObject>

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

using namespace swarmtrain;
using namespace std::chrono_literals;
using swarmtrain::test::waitUntil;

namespace {

constexpr int kHonest = 3;
constexpr qint64 kRounds = 8; // the loss compared is the state after this many rounds

struct SwarmRun {
    double loss = 0.0;
    bool detected = false;              // an honest checker could not reproduce the liar's average
    std::optional<qint64> bannedAtRound; // the round running when the liar was banned
    qint64 joinedAtRound = 0;
    double credit = -1.0;                // the liar's on the leaderboard once banned
    std::string logs;
};

class LyingOwnerTest : public test::AttackedSwarmTest {
protected:
    SwarmRun run(const std::string &name, bool attacked)
    {
        Swarm swarm;
        // No probation: the liar is established at once and owns a range, as a liar that had
        // earned its standing would. The swarm goes on with the honest three once it is banned.
        // Equal ranges: with the same keys, rounds before the liar joins come out bit for bit
        // the same in both runs (ranges by measured upload would differ from run to run).
        startCoordinator(swarm, name, {"--min-peers", std::to_string(kHonest), "--probation-rounds", "0", "--ban-after",
                                       "2", "--range-split", "equal"});
        const QString liar = identity(kHonest).keyId();

        SwarmRun result;
        for (int i = 0; i < kHonest; ++i)
            join(swarm, "", true);
        if (attacked)
            result.joinedAtRound = join(swarm, "lying-owner", true).value_or(0);

        Identity watcher = Identity::generate().value();
        CoordinatorClient status(watcher, CoordinatorClientOptions{QString::fromStdString(swarm.url), {}, 20, 100, 1000});
        std::optional<double> loss;
        const bool done = waitUntil(
            [&] {
                const Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/status"));
                if (!answer)
                    return false;
                if (!loss)
                    loss = test::validationLossAt(*answer, kRounds);
                if (!attacked)
                    return loss.has_value();
                if (!result.bannedAtRound && swarm.coordinator.errors().find("banned " + liar.toStdString()) != std::string::npos)
                    result.bannedAtRound = answer->value(QLatin1StringView("round")).toInteger();
                if (!loss || !result.bannedAtRound)
                    return false;
                result.credit = test::leaderboardCredit(*answer, liar).value_or(result.credit);
                return result.credit == 0.0;
            },
            780s);
        EXPECT_TRUE(done) << swarm.logs();
        result.loss = loss.value_or(0.0);
        for (std::size_t i = 0; i < std::size_t(kHonest); ++i) {
            const std::string errors = swarm.clients[i]->errors();
            result.detected = result.detected
                              || errors.find("the average of " + liar.toStdString() + " does not hold up") != std::string::npos;
            EXPECT_TRUE(swarm.clients[i]->running()) << "honest client " << i << " ended\n" << swarm.logs();
            // Each honest owner met the liar at most as its checker: never the one disputed by several.
            EXPECT_EQ(swarm.coordinator.errors().find("banned " + identity(i).keyId().toStdString()), std::string::npos)
                << swarm.logs();
        }
        result.logs = swarm.logs();
        leave(swarm, result.logs);
        return result;
    }
};

} // namespace

TEST_F(LyingOwnerTest, ALyingRangeOwnerIsCaughtByItsCheckersBannedAndEarnsNothing)
{
    const SwarmRun clean = run("clean", false);
    ASSERT_GT(clean.loss, 0.0) << clean.logs;
    const SwarmRun attacked = run("attacked", true);
    const double delta = attacked.loss / clean.loss - 1.0;
    std::ostringstream line;
    line << "ATTACK lying-owner detected=" << (attacked.detected ? "yes" : "no") << " banned_after="
         << (attacked.bannedAtRound ? std::to_string(*attacked.bannedAtRound - attacked.joinedAtRound) + "-rounds"
                                    : std::string("never"))
         << " loss_delta=" << test::signedPercent(delta);
    std::cout << "honest swarm alone: validation loss " << clean.loss << " after " << kRounds << " rounds" << std::endl;
    std::cout << line.str() << std::endl;
    EXPECT_TRUE(attacked.detected) << attacked.logs;
    EXPECT_TRUE(attacked.bannedAtRound.has_value()) << attacked.logs;
    EXPECT_EQ(attacked.credit, 0.0) << attacked.logs;
    // The liar's range is skipped while it owns one, and it trains and sends honest pieces
    // meanwhile: the honest loss moves little. Held to PoisonedUpdateTest's 10% (timing under
    // load makes even two honest runs differ by several percent); the constant it returns,
    // applied by everyone, would move it far more.
    EXPECT_LT(std::abs(delta), 0.10) << "validation loss " << attacked.loss << " against " << clean.loss << "\n"
                                     << attacked.logs;
}

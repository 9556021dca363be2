// Poisoned updates (issue 16): three honest `swarmtrain --headless` clients and one
// swarmtrain-hostile that sends its pseudo-gradient scaled a hundredfold, then sign-flipped,
// in a small real swarm on loopback. The range owners' norm check refuses the scaled pieces (and
// the coordinator counts offences); CenteredClip leaves the sign-flipped ones out, and the
// coordinator quarantines their sender, whose pieces then stay out of every average. The honest
// swarm's validation loss stays near the same run without the attacker (within 1% unloaded; the
// bound held is 10%, see below), and nothing crashes. Prints a line per attack:
//   ATTACK poison-x100 detected=yes banned_after=never offences=8 loss_delta=+0.12%
#include "AttackedSwarm.h"
#include "CoordinatorClient.h"

#include <QJsonArray>
#include <QJsonObject>

#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

using namespace swarmtrain;
using namespace std::chrono_literals;
using swarmtrain::test::ChildProcess;
using swarmtrain::test::waitUntil;

namespace {

constexpr int kHonest = 3;
constexpr qint64 kRounds = 8; // the loss compared is the state after this many rounds

struct SwarmRun {
    double loss = 0.0;   // the coordinator's validation loss of state kRounds
    bool detected = false; // an honest owner clipped or refused the attacker's piece
    qint64 offences = 0;   // counted against the attacker by the coordinator
    std::string logs;
};

class PoisonedUpdateTest : public test::AttackedSwarmTest {
protected:
    // A swarm of the honest clients, plus the hostile one when `misbehave` is not empty, run
    // until the coordinator has validated state kRounds.
    SwarmRun run(const std::string &name, const std::string &misbehave)
    {
        Swarm swarm;
        const int members = kHonest + (misbehave.empty() ? 0 : 1);
        // Every member from round 0, and no probation (spot checks are off): the attacker's pieces
        // are averaged from its first round, so the owners' clipping is all that stands between
        // them and the model. Not banned here (the swarm would wait for a fourth member): the
        // owners' reports are counted, and bans are SpotCheckTest's and FarFutureFramesTest's.
        // Equal ranges and a long deadline, so the clean and the attacked run split the model the
        // same way and no honest member misses a round on a busy machine: what differs is the attack.
        startCoordinator(swarm, name,
                         {"--min-peers", std::to_string(members), "--probation-rounds", "0", "--ban-after", "1000",
                          "--range-split", "equal", "--round-deadline", "60"});
        for (int i = 0; i < kHonest; ++i)
            join(swarm, "", true);
        // Outbound only, so it owns no range and the honest owners' ranges are the same as without it.
        if (!misbehave.empty())
            join(swarm, misbehave, false);

        SwarmRun result;
        Identity watcher = Identity::generate().value();
        CoordinatorClient status(watcher, CoordinatorClientOptions{QString::fromStdString(swarm.url), {}, 20, 100, 1000});
        std::optional<double> loss;
        const bool validated = waitUntil(
            [&] {
                const Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/status"));
                if (!answer)
                    return false;
                if (!loss)
                    loss = test::validationLossAt(*answer, kRounds);
                return loss.has_value();
            },
            600s);
        EXPECT_TRUE(validated) << swarm.logs();
        result.loss = loss.value_or(0.0);

        // Nothing crashed: every honest client is still running and leaves cleanly on Ctrl-C.
        const QString hostileKey = identity(kHonest).keyId();
        for (std::size_t i = 0; i < std::size_t(kHonest); ++i) {
            const std::string errors = swarm.clients[i]->errors();
            for (const char *mark : {"clipped the piece of ", "left out the piece of ", "refused a piece from "})
                result.detected = result.detected || errors.find(mark + hostileKey.toStdString()) != std::string::npos;
            EXPECT_TRUE(swarm.clients[i]->running()) << "honest client " << i << " ended\n" << swarm.logs();
        }
        const std::string coordinatorLog = swarm.coordinator.errors();
        for (std::size_t at = coordinatorLog.find("of " + hostileKey.toStdString() + " ("); at != std::string::npos;
             at = coordinatorLog.find("of " + hostileKey.toStdString() + " (", at + 1))
            ++result.offences;
        result.logs = swarm.logs();
        leave(swarm, result.logs);
        return result;
    }
};

} // namespace

TEST_F(PoisonedUpdateTest, ScaledAndSignFlippedUpdatesAreCaughtAndTheHonestLossHolds)
{
    const SwarmRun clean = run("clean", "");
    ASSERT_GT(clean.loss, 0.0) << clean.logs;
    std::cout << "honest swarm alone: validation loss " << clean.loss << " after " << kRounds << " rounds" << std::endl;
    for (const auto &[attack, misbehave] : {std::pair{"poison-x100", "scale100"}, std::pair{"poison-sign-flip", "sign-flip"}}) {
        const SwarmRun attacked = run(attack, misbehave);
        const double delta = attacked.loss / clean.loss - 1.0;
        // Clipped pieces stay in the average (cut to the honest spread); refused ones are
        // reported to the coordinator, which counts them as offences.
        std::cout << "ATTACK " << attack << " detected=" << (attacked.detected ? "yes" : "no")
                  << " banned_after=never offences=" << attacked.offences << " loss_delta=" << test::signedPercent(delta) << std::endl;
        EXPECT_TRUE(attacked.detected) << attacked.logs;
        // Issue 16's goal is 1%, which unloaded runs meet: +0.00% for both attacks, every agreed
        // hash the clean run's (before the quarantine, a sign-flipped piece that fell within
        // CenteredClip's tau in one range of round 5 cost +2.72%). Under
        // stress-ng beside the suite, owners that average before a slow honest piece arrives make
        // even the honest swarm's rounds differ from run to run (+8.60% and -4.06% measured with
        // the attacker left out by every owner but one in one round), so the test holds 10%: a
        // poisoned update that got through unclipped moves the loss far more than that.
        EXPECT_LT(std::abs(delta), 0.10) << "validation loss " << attacked.loss << " against " << clean.loss << "\n"
                                         << attacked.logs;
    }
}

// The misbehaviour switch is the test-only client's: the released client refuses it.
TEST_F(PoisonedUpdateTest, TheReleasedClientHasNoMisbehaviourSwitch)
{
    ChildProcess client;
    ASSERT_TRUE(client.start(SWARMTRAIN_CLIENT, {"--headless", "--misbehave", "scale100", "--swarm", "http://127.0.0.1:1"},
                             dir.path() / "release.out", dir.path() / "release.err"));
    EXPECT_EQ(client.waitForExit(std::chrono::minutes(5)), 2);
    EXPECT_NE(client.errors().find("Unknown option 'misbehave'"), std::string::npos) << client.errors();
}

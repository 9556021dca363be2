// A lying range owner (issue 16): three honest `swarmtrain --headless` clients and one
// swarmtrain-hostile that owns a range like them but returns a constant as that range's
// "average". Each range has a second owner, its checker, which recomputes the average from the
// same pieces: every member skips the liar's range, the checker and the liar report each other,
// and since who checks whom rotates each round, the liar is the one member disputed by several
// different checkers. The coordinator counts that as an offence, bans the liar, and a ban takes
// its credit. Prints:
//   ATTACK lying-owner detected=yes banned_after=4-rounds loss_delta=-0.84%
#include "ChildProcess.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "SwarmHarness.h"
#include "TempDir.h"
#include "TestApplication.h"

#include <QJsonArray>
#include <QJsonObject>

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>

using namespace swarmtrain;
using namespace std::chrono_literals;
using swarmtrain::test::ChildProcess;
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

class LyingOwnerTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        dir.write("data.txt", test::generatedText(120'000));
        for (int i = 0; i <= kHonest; ++i)
            identities.push_back(Identity::loadOrCreate(keyFile(i)).value());
    }

    SwarmRun run(const std::string &name, bool attacked)
    {
        const std::filesystem::path root = dir.path() / name;
        std::filesystem::create_directories(root);
        ChildProcess coordinator;
        std::vector<std::string> args = test::smallSwarmFlags(root / "coordinator", dir.path() / "data.txt");
        // No probation: the liar is established at once and owns a range, as a liar that had
        // earned its standing would. The swarm goes on with the honest three once it is banned.
        // Equal ranges: with the same keys, rounds before the liar joins come out bit for bit
        // the same in both runs (ranges by measured upload would differ from run to run).
        args.insert(args.end(), {"--min-peers", std::to_string(kHonest), "--probation-rounds", "0", "--ban-after", "2", "--range-split", "equal"});
        const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, root);
        EXPECT_NE(port, 0) << coordinator.errors();
        const std::string url = "http://127.0.0.1:" + std::to_string(port);
        const QString liar = identities[kHonest].keyId();

        SwarmRun result;
        std::vector<std::unique_ptr<ChildProcess>> clients;
        const int members = kHonest + (attacked ? 1 : 0);
        for (int i = 0; i < members; ++i) {
            const bool hostile = i == kHonest;
            const std::filesystem::path state = root / ("client" + std::to_string(i));
            std::filesystem::create_directories(state);
            std::filesystem::copy_file(keyFile(i), state / "identity.pem");
            std::vector<std::string> clientArgs = {"--headless", "--swarm", url, "--state-dir", state.string(),
                                                   "--listen", "127.0.0.1:0", "--threads", "1"};
            if (hostile)
                clientArgs.insert(clientArgs.begin(), {"--misbehave", "lying-owner"});
            clients.push_back(std::make_unique<ChildProcess>());
            EXPECT_TRUE(clients.back()->start(hostile ? SWARMTRAIN_HOSTILE : SWARMTRAIN_CLIENT, clientArgs,
                                              state.string() + ".out", state.string() + ".err"));
            // One at a time: shards are dealt in joining order, the same to each honest client in both runs.
            EXPECT_TRUE(waitUntil([&] { return clients.back()->errors().find("joined; round") != std::string::npos; }, 300s))
                << clients.back()->errors();
            std::smatch joined;
            const std::string joinLog = clients.back()->errors();
            if (hostile && std::regex_search(joinLog, joined, std::regex("joined; round (\\d+)")))
                result.joinedAtRound = std::stoll(joined[1].str());
        }
        const auto logs = [&] {
            std::string all = "coordinator:\n" + coordinator.errors();
            for (int i = 0; i < members; ++i)
                all += "client " + std::to_string(i) + ":\n" + clients[std::size_t(i)]->errors();
            return all;
        };

        Identity watcher = Identity::generate().value();
        CoordinatorClient status(watcher, CoordinatorClientOptions{QString::fromStdString(url), {}, 20, 100, 1000});
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
                if (!result.bannedAtRound && coordinator.errors().find("banned " + liar.toStdString()) != std::string::npos)
                    result.bannedAtRound = answer->value(QLatin1StringView("round")).toInteger();
                if (!loss || !result.bannedAtRound)
                    return false;
                result.credit = test::leaderboardCredit(*answer, liar).value_or(result.credit);
                return result.credit == 0.0;
            },
            900s);
        EXPECT_TRUE(done) << logs();
        result.loss = loss.value_or(0.0);
        for (int i = 0; i < kHonest; ++i) {
            const std::string errors = clients[std::size_t(i)]->errors();
            result.detected = result.detected
                              || errors.find("the average of " + liar.toStdString() + " does not hold up") != std::string::npos;
            EXPECT_TRUE(clients[std::size_t(i)]->running()) << "honest client " << i << " ended\n" << logs();
            // Each honest owner met the liar at most as its checker: never the one disputed by several.
            EXPECT_EQ(coordinator.errors().find("banned " + identities[std::size_t(i)].keyId().toStdString()),
                      std::string::npos)
                << logs();
        }
        result.logs = logs();
        // The honest ones leave cleanly; the banned liar has already ended with an error.
        for (int i = 0; i < members; ++i) {
            const int exit = clients[std::size_t(i)]->kill(SIGINT);
            if (i < kHonest) {
                EXPECT_EQ(exit, 0) << result.logs;
            }
        }
        EXPECT_EQ(coordinator.kill(SIGTERM), 0);
        return result;
    }

    std::filesystem::path keyFile(int i) const { return dir.path() / "keys" / (std::to_string(i) + ".pem"); }

    test::TempDir dir;
    std::vector<Identity> identities;
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

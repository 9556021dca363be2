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
// And three colluders among nine members: a `coalition` that vouches for its members' averages
// and makes up its own where the round's draw made an ally its checker. No checker disputes such
// a range. In one run the coalition lies wherever an ally checks it, and the coordinator audits
// every range (--range-audits 1); in the other, at the default settings, it lies where an ally
// checks it and its referee is honest, which the referee's own check catches (the audits alone
// would catch 1 in 4). Either way the coordinator rules on the owner's evidence, which proves the
// lie, and the checker named before the draw that it reproduced that very average: both are
// banned at once. The coalition is patient (it behaves for its first 3 rounds). Prints:
//   ATTACK colluding-coalition members=9 colluders=3 rounds=4 lies_refuted=1 lie_rounds=3,-,-
//          false_vouches=1 vouch_rounds=-,3,- banned=2 banned_credit_before=15.36/15.36
//          banned_credit=0/0 never_acted_credit=20.48 honest_banned=no loss_delta=+0.00%
//          rounds_refereed=4 lies_refuted_refereed=1 banned_refereed=2 loss_delta_refereed=-0.01%
//          loss_delta_unchecked=+19.14% rounds_unchecked=5 banned_unchecked=0
#include "AttackedSwarm.h"

#include <QJsonObject>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

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

namespace {

constexpr std::size_t kMembers = 9, kCoalition = 3; // the coalition: the last three to join
// The coalition is patient: it trains honestly for this many rounds, earning credit, then lies in
// the rounds an ally checks it, 1 in 4 at nine owners; the ruling that refutes a lie bans the liar
// and the ally that vouched for it at once. An attacked run goes until the first ban, the run with
// neither audits nor referee checks until the first lie, at most kMaxCoalitionRounds rounds each.
constexpr qint64 kPatience = 3, kMaxCoalitionRounds = 40;

struct CoalitionRun {
    std::map<qint64, double> losses;       // the validation loss at each compared round
    qint64 compared = -1;                  // the round an attacked run compares at
    std::vector<std::vector<qint64>> lies; // by coalition member: the rounds a ruling refuted its average
    std::vector<std::vector<qint64>> vouches; // ...the rounds it vouched for a refuted average
    std::vector<bool> banned;              // by coalition member
    std::vector<double> credit;            // by coalition member, on the leaderboard at the end
    std::vector<double> peakCredit;        // ...the most it held during the run
    std::string logs;

    std::size_t count(const std::vector<std::vector<qint64>> &byMember) const
    {
        std::size_t n = 0;
        for (const std::vector<qint64> &rounds : byMember)
            n += rounds.size();
        return n;
    }
};

// How a run ends: at the first ban (the defence on), at the first lie (off), or at given rounds.
enum class Until { Ban, Lie, Rounds };

class ColludingCoalitionTest : public test::AttackedSwarmTest {
protected:
    // All nine honest (an empty `coalition`), or the last three a coalition of that kind
    // (swarmtrain-hostile's coalition:KEYS@3 and what follows it); `flags`: the coordinator's.
    // The losses compared are those of the states `compareAt` (Until::Rounds); otherwise, of the
    // state made by the round whose close banned the first of the coalition, or by the round of
    // its first lie.
    CoalitionRun run(const std::string &name, const std::optional<std::string> &coalitionKind, Until until,
                     const std::vector<std::string> &flags, const std::vector<qint64> &compareAt = {})
    {
        Swarm swarm;
        // Established at once, equal ranges and no spot checks. All nine come from 127.0.0.1, so
        // no limit on peers or requests an address. Every round has all nine, so the runs differ
        // but for the attack (a ban ends the rounds: the compared one is the state that ban's
        // round made).
        std::vector<std::string> arguments{"--min-peers", std::to_string(kMembers), "--probation-rounds", "0",
                                           "--range-split", "equal", "--spot-check-rate", "0",
                                           "--max-peers-per-address", "0", "--rate-limit-address", "0"};
        arguments.insert(arguments.end(), flags.begin(), flags.end());
        startCoordinator(swarm, name, arguments);
        QStringList coalition;
        for (std::size_t i = kMembers - kCoalition; i < kMembers; ++i)
            coalition.append(identity(i).keyId());
        for (std::size_t i = 0; i < kMembers; ++i) {
            const bool colluder = coalitionKind && i >= kMembers - kCoalition;
            join(swarm,
                 colluder ? "coalition:" + coalition.join(QLatin1Char(',')).toStdString() + "@" + std::to_string(kPatience)
                                + *coalitionKind
                          : "",
                 true);
        }
        CoalitionRun result;
        std::set<qint64> compared(compareAt.begin(), compareAt.end());
        result.peakCredit.assign(kCoalition, 0.0);
        const auto bannedOf = [&](const std::string &coordinatorLog) {
            std::vector<bool> banned;
            for (const QString &key : coalition)
                banned.push_back(coordinatorLog.find("banned " + key.toStdString()) != std::string::npos);
            return banned;
        };
        const bool done = watchStatus(
            swarm,
            [&](const QJsonObject &answer) {
                const qint64 round = answer.value(QLatin1StringView("round")).toInteger();
                result.credit.clear();
                for (const QString &key : coalition) {
                    result.credit.push_back(test::leaderboardCredit(answer, key).value_or(0.0));
                    double &peak = result.peakCredit.at(std::size_t(result.credit.size() - 1));
                    peak = std::max(peak, result.credit.back());
                }
                if (compared.empty()) {
                    if (until == Until::Ban) {
                        const std::vector<bool> banned = bannedOf(swarm.coordinator.errors());
                        // The ban ends the rounds (eight are fewer than a round needs): the round
                        // the status is at starts from the state the ban's round made.
                        if (std::find(banned.begin(), banned.end(), true) != banned.end())
                            compared.insert(round);
                    } else if (std::any_of(swarm.clients.end() - kCoalition, swarm.clients.end(),
                                           [](const auto &client) { return client->output().find("made up") != std::string::npos; })) {
                        // A lie made in this round (or the one before) is in the state it makes.
                        compared.insert(round + 1);
                    }
                    result.compared = compared.empty() ? -1 : *compared.begin();
                    return round > kMaxCoalitionRounds;
                }
                return test::validationLossesAt(answer, compared, result.losses);
            },
            1800s);
        EXPECT_TRUE(done) << swarm.logs();
        const std::string coordinatorLog = swarm.coordinator.errors();
        result.banned = bannedOf(coordinatorLog);
        for (const QString &key : coalition) {
            std::vector<qint64> rounds;
            const std::regex refuted("round (\\d+) : the evidence of " + key.toStdString() + " does not hold");
            for (auto it = std::sregex_iterator(coordinatorLog.begin(), coordinatorLog.end(), refuted); it != std::sregex_iterator(); ++it)
                rounds.push_back(std::stoll((*it)[1].str()));
            result.lies.push_back(std::move(rounds));
            rounds.clear();
            const std::regex vouched("round (\\d+) : " + key.toStdString() + " vouched for the average of");
            for (auto it = std::sregex_iterator(coordinatorLog.begin(), coordinatorLog.end(), vouched); it != std::sregex_iterator(); ++it)
                rounds.push_back(std::stoll((*it)[1].str()));
            result.vouches.push_back(std::move(rounds));
        }
        if (coalitionKind)
            expectHonestUnharmed(swarm, swarm.logs());
        result.logs = swarm.logs();
        leave(swarm, result.logs);
        return result;
    }

    // What an attacked run must show: each member of the coalition banned at its first lie or
    // false vouch and for nothing else, only once its patience was over, with all the credit it
    // had earned gone; at least one false vouch (a lie goes only where an ally checks).
    static void expectCaught(const CoalitionRun &attacked)
    {
        EXPECT_GE(attacked.count(attacked.vouches), 1u) << "a lie goes only where an ally checks, and vouches\n" << attacked.logs;
        for (std::size_t i = 0; i < kCoalition; ++i) {
            const bool acted = !attacked.lies.at(i).empty() || !attacked.vouches.at(i).empty();
            EXPECT_EQ(attacked.banned.at(i), acted) << "banned at its first lie or false vouch, and for nothing else\n"
                                                    << attacked.logs;
            for (const qint64 round : attacked.lies.at(i))
                EXPECT_GE(round, kPatience) << "it lies only once its patience is over\n" << attacked.logs;
            if (acted) {
                EXPECT_GT(attacked.peakCredit.at(i), 0.0) << "it earned credit while it behaved";
                EXPECT_EQ(attacked.credit.at(i), 0.0) << "and lost it all\n" << attacked.logs;
            }
        }
    }
};

// "a/b/c", or "-" for none.
template <typename T>
std::string joined(const std::vector<T> &values)
{
    std::ostringstream text;
    for (std::size_t i = 0; i < values.size(); ++i)
        text << (i ? "/" : "") << values[i];
    return values.empty() ? "-" : text.str();
}

} // namespace

// A patient coalition first earns credit with honest rounds. Then each average a member makes up,
// in the rounds the draw made an ally its checker, is refuted and applied by no one: by the
// audits where every range is audited, and at the default settings by the range's referee, which
// checks every average and whose verdict gets the range audited. The liar and the ally that
// vouched for it are banned at once with all the credit they earned, and the swarm's loss stays
// within 1% of the same nine keys all honest. A member of the coalition that never lied nor
// vouched for a lie by then did nothing but honest work, which keeps its credit. With neither
// audits nor referee checks, the first made-up average goes in (compared at the state of its
// round, which the draw decides) and no one is caught.
TEST_F(ColludingCoalitionTest, ThreeColludersAmongNineMembersAreCaughtAndTheirAveragesNeverApplied)
{
    const CoalitionRun audited = run("coalition", "", Until::Ban, {"--range-audits", "1"});
    ASSERT_EQ(audited.losses.size(), 1u) << "no member of the coalition was banned within " << kMaxCoalitionRounds
                                         << " rounds\n" << audited.logs;
    const CoalitionRun refereed = run("coalition-refereed", "/honest-referee", Until::Ban, {});
    ASSERT_EQ(refereed.losses.size(), 1u) << "no member of the coalition was banned within " << kMaxCoalitionRounds
                                          << " rounds\n" << refereed.logs;
    const CoalitionRun unchecked = run("coalition-unchecked", "", Until::Lie, {"--range-audits", "0", "--no-referee-checks"});
    ASSERT_EQ(unchecked.losses.size(), 1u) << "no member of the coalition lied within " << kMaxCoalitionRounds
                                           << " rounds\n" << unchecked.logs;
    const CoalitionRun clean =
        run("clean", std::nullopt, Until::Rounds, {}, {audited.compared, refereed.compared, unchecked.compared});
    const auto deltaOf = [&](const CoalitionRun &attacked) {
        EXPECT_TRUE(clean.losses.contains(attacked.compared)) << clean.logs;
        return clean.losses.contains(attacked.compared)
                   ? attacked.losses.at(attacked.compared) / clean.losses.at(attacked.compared) - 1.0
                   : std::nan("");
    };
    const double delta = deltaOf(audited), refereedDelta = deltaOf(refereed), uncheckedDelta = deltaOf(unchecked);
    std::string lieRounds, vouchRounds;
    std::vector<double> bannedCredit, bannedPeak, idleCredit;
    for (std::size_t i = 0; i < kCoalition; ++i) {
        lieRounds += (i ? "," : "") + joined(audited.lies.at(i));
        vouchRounds += (i ? "," : "") + joined(audited.vouches.at(i));
        (audited.banned.at(i) ? bannedCredit : idleCredit).push_back(audited.credit.at(i));
        if (audited.banned.at(i))
            bannedPeak.push_back(audited.peakCredit.at(i));
    }
    std::cout << "ATTACK colluding-coalition members=" << kMembers << " colluders=" << kCoalition << " rounds=" << audited.compared
              << " lies_refuted=" << audited.count(audited.lies) << " lie_rounds=" << lieRounds
              << " false_vouches=" << audited.count(audited.vouches) << " vouch_rounds=" << vouchRounds
              << " banned=" << bannedCredit.size() << " banned_credit_before=" << joined(bannedPeak)
              << " banned_credit=" << joined(bannedCredit) << " never_acted_credit=" << joined(idleCredit)
              << " honest_banned=no loss_delta=" << test::signedPercent(delta) << " rounds_refereed=" << refereed.compared
              << " lies_refuted_refereed=" << refereed.count(refereed.lies)
              << " banned_refereed=" << std::count(refereed.banned.begin(), refereed.banned.end(), true)
              << " loss_delta_refereed=" << test::signedPercent(refereedDelta)
              << " loss_delta_unchecked=" << test::signedPercent(uncheckedDelta) << " rounds_unchecked=" << unchecked.compared
              << " banned_unchecked=" << std::count(unchecked.banned.begin(), unchecked.banned.end(), true) << std::endl;
    expectCaught(audited);
    expectCaught(refereed);
    EXPECT_GE(refereed.count(refereed.lies), 1u) << refereed.logs;
    for (std::size_t i = 0; i < kCoalition; ++i)
        EXPECT_FALSE(unchecked.banned.at(i)) << unchecked.logs;
    EXPECT_LT(std::abs(delta), 0.01) << "validation loss " << audited.losses.at(audited.compared) << audited.logs;
    EXPECT_LT(std::abs(refereedDelta), 0.01) << "validation loss " << refereed.losses.at(refereed.compared) << refereed.logs;
    // The defences switched off: the made-up averages go in.
    EXPECT_GT(uncheckedDelta, 0.01) << "validation loss " << unchecked.losses.at(unchecked.compared) << unchecked.logs;
}

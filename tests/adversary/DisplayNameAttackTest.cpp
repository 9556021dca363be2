// Hostile display names at the join (issue 19), in-process: a real CoordinatorServer on loopback
// with its SQLite store. A name that breaks the rule (too long, control characters, bidi
// overrides, only spaces, not a string) is refused with a 400 that names the field, and nothing
// of the join is stored; a name with markup is text, stored and served back unchanged (the status
// page escapes it: its own tests show that).
#include "InProcessCoordinatorTest.h"

#include <QJsonArray>

#include <iostream>

using namespace swarmtrain;
using namespace swarmtrain::test;

namespace {

class DisplayNameAttackTest : public InProcessCoordinatorTest {
protected:
    void SetUp() override
    {
        InProcessCoordinatorTest::SetUp();
        startServer();
    }

    HttpAnswer joinNamed(Peer &peer, const QJsonValue &name)
    {
        QJsonObject body{{QStringLiteral("public_key"), QString::fromLatin1(peer.identity.publicKey().toBase64())},
                         {QStringLiteral("device"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("test")}}},
                         {QStringLiteral("endpoint"), QString()},
                         {QStringLiteral("client_version"), QStringLiteral("0.1.0")},
                         {QStringLiteral("invite"), QString()}};
        body.insert(QStringLiteral("display_name"), name);
        return post(peer, "/v1/join", body);
    }

    // The leaderboard row of `peer` in GET /v1/status; empty when it is not there.
    QJsonObject leaderRow(Peer &asker, const Peer &peer)
    {
        const HttpAnswer status = send("GET", "/v1/status", {}, asker);
        EXPECT_EQ(status.status, 200) << status.body.constData();
        for (const QJsonValue &leader : status.json().value(QLatin1StringView("leaderboard")).toArray()) {
            if (leader.toObject().value(QLatin1StringView("peer_id")).toString() == peer.keyId())
                return leader.toObject();
        }
        return {};
    }

    static void printAttack(const std::string &attack, bool detected)
    {
        std::cout << "ATTACK " << attack << " detected=" << (detected ? "yes" : "no")
                  << " banned_after=- loss_delta=n/a (no training)" << std::endl;
    }
};

struct HostileName {
    const char *attack;
    QJsonValue name;
};

} // namespace

TEST_F(DisplayNameAttackTest, HostileNamesAreRefusedByFieldAndNothingIsStored)
{
    const HostileName hostile[] = {
        {"display-name-10kb", QString(10 * 1024, QLatin1Char('x'))},
        {"display-name-control-characters", QStringLiteral("Ada\r\nSet-Cookie: x\u0007")},
        {"display-name-bidi-override", QStringLiteral("Ada\u202Egnp.exe")},
        {"display-name-bidi-isolate", QStringLiteral("\u2067Ada\u2069")},
        {"display-name-zero-width", QStringLiteral("Ad\u200Ba")},
        {"display-name-only-spaces", QStringLiteral("   \u3000 ")},
        {"display-name-number", 42},
        {"display-name-object", QJsonObject{{QStringLiteral("name"), QStringLiteral("Ada")}}},
        {"display-name-array", QJsonArray{QStringLiteral("Ada")}},
    };
    for (const HostileName &attempt : hostile) {
        Peer &stranger = newPeer(false);
        const HttpAnswer answer = joinNamed(stranger, attempt.name);
        EXPECT_EQ(answer.status, 400) << attempt.attack << ": " << answer.body.constData();
        EXPECT_TRUE(answer.error().startsWith(QStringLiteral("join.display_name "))) << answer.error().toStdString();
        const bool stored = setup->store->peer(stranger.keyId())->has_value();
        EXPECT_FALSE(stored) << attempt.attack << ": a refused join stores nothing";
        printAttack(attempt.attack, answer.status == 400 && !stored);
    }

    // A peer that joined with a good name keeps it when a later join brings a bad one.
    Peer &known = newPeer(false);
    ASSERT_EQ(joinNamed(known, QStringLiteral("Ada")).status, 200);
    EXPECT_EQ(joinNamed(known, QStringLiteral("Ada\u202E")).status, 400);
    EXPECT_EQ(record(known).displayName, QStringLiteral("Ada"));
    EXPECT_EQ(leaderRow(known, known).value(QLatin1StringView("display_name")).toString(), QStringLiteral("Ada"));
}

TEST_F(DisplayNameAttackTest, MarkupInANameIsTextStoredAndServedBackUnchanged)
{
    Peer &peer = newPeer(false);
    const QString markup = QStringLiteral("<b>x</b>");
    const HttpAnswer answer = joinNamed(peer, markup);
    ASSERT_EQ(answer.status, 200) << answer.body.constData();
    EXPECT_EQ(record(peer).displayName, markup);
    const QJsonObject row = leaderRow(peer, peer);
    EXPECT_EQ(row.value(QLatin1StringView("display_name")).toString(), markup);
    EXPECT_EQ(row.value(QLatin1StringView("peer_id")).toString(), peer.keyId()) << "the key id stays the key";
    printAttack("display-name-markup", row.value(QLatin1StringView("display_name")).toString() == markup);
}

TEST_F(DisplayNameAttackTest, ALaterJoinChangesTheNameAndNamesNeedNotBeUnique)
{
    Peer &first = newPeer(false);
    Peer &second = newPeer(false);
    ASSERT_EQ(joinNamed(first, QStringLiteral("  Zoe\u0308  ")).status, 200);
    EXPECT_EQ(record(first).displayName, QStringLiteral("Zo\u00EB")) << "trimmed and in NFC";
    ASSERT_EQ(joinNamed(second, QStringLiteral("Zo\u00EB")).status, 200) << "a name is not an identity";
    ASSERT_EQ(joinNamed(first, QStringLiteral("Ada")).status, 200);
    EXPECT_EQ(record(first).displayName, QStringLiteral("Ada"));
    EXPECT_EQ(record(second).displayName, QStringLiteral("Zo\u00EB"));
    ASSERT_EQ(joinNamed(first, QJsonValue()).status, 200) << "null, as absent: no name";
    EXPECT_EQ(record(first).displayName, QString());
    EXPECT_EQ(leaderRow(second, first).value(QLatin1StringView("display_name")).toString(), QString());
}

#include "Invite.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

TEST(InviteTest, RoundTripsUrlAndPin)
{
    const Invite invite{QStringLiteral("https://192.168.1.5:8470"), QStringLiteral("sha256//AbC+/9xyz=")};
    const QString link = formatInvite(invite);
    EXPECT_TRUE(link.startsWith(QStringLiteral("swarmtrain://join?swarm=https%3A%2F%2F192.168.1.5%3A8470&pin=")));
    Result<Invite> parsed = parseInvite(QStringLiteral("  ") + link + QStringLiteral("\n"));
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->swarmUrl, invite.swarmUrl);
    EXPECT_EQ(parsed->pin, invite.pin);
}

TEST(InviteTest, APlainAddressHasNoPin)
{
    Result<Invite> parsed = parseInvite(QStringLiteral("http://swarm.example.org:8470/"));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->swarmUrl, QStringLiteral("http://swarm.example.org:8470"));
    EXPECT_TRUE(parsed->pin.isEmpty());
}

TEST(InviteTest, RejectsWhatIsNotAnInvite)
{
    for (const char *bad : {"", "swarm.example.org", "ftp://host/x", "swarmtrain://join?pin=sha256//x",
                            "swarmtrain://join?swarm=https%3A%2F%2Fh%3A1&pin=md5//x", "swarmtrain://leave?swarm=http%3A%2F%2Fh%3A1"}) {
        Result<Invite> parsed = parseInvite(QString::fromLatin1(bad));
        EXPECT_FALSE(parsed.ok()) << bad;
        if (!parsed.ok())
            EXPECT_FALSE(parsed.error().message.empty());
    }
}

TEST(InviteTest, AnInviteOnlySwarmsTokenTravelsInTheLink)
{
    const Invite invite{QStringLiteral("https://192.0.2.7:8470"), QStringLiteral("sha256//AAAA"), QStringLiteral("0f1e2d3c")};
    const Result<Invite> parsed = parseInvite(formatInvite(invite));
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->token, invite.token);
    EXPECT_EQ(parsed->pin, invite.pin);
    EXPECT_EQ(parseInvite(QStringLiteral("https://192.0.2.7:8470"))->token, QString()) << "a plain address has no token";
    EXPECT_EQ(formatInvite({invite.swarmUrl, invite.pin}).contains(QLatin1StringView("token")), false);
}

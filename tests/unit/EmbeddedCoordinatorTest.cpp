// The coordinator inside the desktop client: on its own thread, with a self-signed certificate
// whose pin lets a client in.
#include "CoordinatorClient.h"
#include "EmbeddedCoordinator.h"
#include "Identity.h"
#include "TempDir.h"
#include "TestApplication.h"

#include <QSignalSpy>

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

CoordinatorConfig smallSwarm(const test::TempDir &dir)
{
    Result<CoordinatorConfig> config = parseCoordinatorArguments(
        {"--listen", "127.0.0.1:0", "--state-dir", (dir.path() / "hosted").string(), "--data",
         (dir.path() / "data.txt").string(), "--n-layer", "1", "--n-head", "2", "--n-embd", "32", "--block-size", "32",
         "--eval-iters", "2", "--tls-self-signed"});
    EXPECT_TRUE(config.ok()) << config.error().message;
    return *config;
}

TEST(EmbeddedCoordinatorTest, ServesOverTlsThatItsPinOpens)
{
    test::application();
    test::TempDir dir;
    dir.write("data.txt", test::generatedText(40'000));
    EmbeddedCoordinator coordinator(smallSwarm(dir));
    QSignalSpy started(&coordinator, &EmbeddedCoordinator::started);
    QSignalSpy failed(&coordinator, &EmbeddedCoordinator::failed);
    coordinator.start();
    ASSERT_TRUE(started.wait(30000)) << (failed.isEmpty() ? "" : failed[0][0].toString().toStdString());
    const QString url = started[0][0].toString();
    const QString pin = started[0][1].toString();
    EXPECT_TRUE(url.startsWith(QStringLiteral("https://127.0.0.1:")));
    EXPECT_TRUE(pin.startsWith(QStringLiteral("sha256//")));
    EXPECT_TRUE(coordinator.isRunning());

    Result<Identity> identity = Identity::generate();
    ASSERT_TRUE(identity.ok());
    CoordinatorClient pinned(*identity, CoordinatorClientOptions{url, pin, 1, 100, 1000});
    Result<QJsonObject> status = pinned.getJson(QStringLiteral("/v1/status"));
    ASSERT_TRUE(status.ok()) << status.error().message;
    EXPECT_EQ(status->value(QLatin1StringView("round")).toInt(), 0);

    CoordinatorClient wrongPin(*identity, CoordinatorClientOptions{url, QStringLiteral("sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="), 1, 100, 1000});
    EXPECT_FALSE(wrongPin.getJson(QStringLiteral("/v1/status")).ok());

    coordinator.stop();
    EXPECT_FALSE(coordinator.isRunning());
    EXPECT_FALSE(pinned.getJson(QStringLiteral("/v1/status")).ok()) << "stopped means not listening";
}

TEST(EmbeddedCoordinatorTest, MissingDataFailsWithTheReason)
{
    test::application();
    test::TempDir dir; // no data.txt
    EmbeddedCoordinator coordinator(smallSwarm(dir));
    QSignalSpy failed(&coordinator, &EmbeddedCoordinator::failed);
    coordinator.start();
    ASSERT_TRUE(failed.wait(30000));
    EXPECT_TRUE(failed[0][0].toString().contains(QStringLiteral("data.txt"))) << failed[0][0].toString().toStdString();
    EXPECT_FALSE(coordinator.isRunning());
}

} // namespace

// The Swarm page: joining from an address or an invite, and hosting a swarm on this PC.
#include "GuiTest.h"
#include "SwarmPage.h"

#include "CoordinatorConfig.h"
#include "DashboardPage.h"
#include "Invite.h"
#include "SettingsPage.h"
#include "WorkController.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTcpServer>
#include <QTest>

using namespace swarmtrain;

namespace {

class SwarmPageTest : public test::GuiTest {
protected:
    template <typename T>
    static T *child(const QWidget &page, const char *name)
    {
        T *widget = page.findChild<T *>(QString::fromLatin1(name));
        EXPECT_NE(widget, nullptr) << name;
        return widget;
    }

    // The row of the leaderboard whose name cell contains `name`, -1 when none does.
    static int rowNamed(const QTableWidget &table, const QString &name)
    {
        for (int row = 0; row < table.rowCount(); ++row) {
            if (table.item(row, 1) && table.item(row, 1)->text().contains(name))
                return row;
        }
        return -1;
    }

    static bool rowIsBold(const QTableWidget &table, int row)
    {
        for (int column = 0; column < table.columnCount(); ++column) {
            if (!table.item(row, column) || !table.item(row, column)->font().bold())
                return false;
        }
        return true;
    }

    // A port no one listens on now.
    static int freePort()
    {
        QTcpServer server;
        server.listen(QHostAddress::Any, 0);
        return server.serverPort();
    }
};

} // namespace

TEST_F(SwarmPageTest, ABadAddressShowsTheErrorInWords)
{
    SwarmPage page(session());
    page.show();
    child<QLineEdit>(page, "joinEdit")->setText(QStringLiteral("ftp://swarm.example.org"));
    child<QPushButton>(page, "joinButton")->click();

    auto *message = child<QLabel>(page, "joinMessage");
    EXPECT_TRUE(message->isVisible());
    EXPECT_EQ(message->text().toStdString(), parseInvite(QStringLiteral("ftp://swarm.example.org")).error().message);
    EXPECT_TRUE(message->text().contains(QStringLiteral("ftp://swarm.example.org")));
    EXPECT_FALSE(session().joined());
    EXPECT_FALSE(child<QPushButton>(page, "leaveButton")->isEnabled());
    EXPECT_EQ(child<QLabel>(page, "roleValue")->text(), QStringLiteral("—"));
}

TEST_F(SwarmPageTest, AnInviteFillsThePinAndJoinsWithIt)
{
    SwarmPage page(session());
    page.show();
    const QString pin = QStringLiteral("sha256//47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
    const QString url = QStringLiteral("https://127.0.0.1:%1").arg(freePort()); // refused at once
    auto *edit = child<QLineEdit>(page, "joinEdit");
    auto *pinEdit = child<QLineEdit>(page, "pinEdit");
    edit->setText(formatInvite({url, pin}));
    EXPECT_EQ(pinEdit->text(), pin);
    edit->setText(url); // a plain address pins nothing
    EXPECT_EQ(pinEdit->text(), QString());
    edit->setText(formatInvite({url, pin}));

    child<QPushButton>(page, "joinButton")->click();
    ASSERT_TRUE(session().joined());
    EXPECT_EQ(session().swarm().swarmUrl, url);
    EXPECT_EQ(session().swarm().pin, pin);
    EXPECT_EQ(child<QLabel>(page, "swarmUrlValue")->text(), url);
    EXPECT_TRUE(child<QLabel>(page, "pinValue")->text().contains(pin));
    EXPECT_EQ(child<QLabel>(page, "roleValue")->text(), QStringLiteral("Full model replica"));
    // The coordinator is not there: the page says so once the status poll fails.
    EXPECT_TRUE(QTest::qWaitFor([&] { return !child<QLabel>(page, "reachMessage")->text().isEmpty(); }, 15'000));

    auto *leave = child<QPushButton>(page, "leaveButton");
    EXPECT_TRUE(leave->isEnabled());
    leave->click();
    EXPECT_FALSE(session().joined());
    EXPECT_EQ(child<QLabel>(page, "roleValue")->text(), QStringLiteral("—"));
}

TEST_F(SwarmPageTest, PlainHttpToAnotherComputerNeedsTheSetting)
{
    SwarmPage page(session());
    page.show();
    auto *allow = child<QCheckBox>(page, "allowPlainHttp");
    EXPECT_FALSE(allow->isChecked());
    // Another computer, and one that can never be reached (.invalid never resolves, RFC 2606):
    // once allowed, the worker's join attempts go nowhere.
    const QString url = QStringLiteral("http://swarm.invalid:8470");
    child<QLineEdit>(page, "joinEdit")->setText(url);
    child<QPushButton>(page, "joinButton")->click();
    auto *message = child<QLabel>(page, "joinMessage");
    EXPECT_TRUE(message->isVisible());
    EXPECT_TRUE(message->text().contains(QStringLiteral("plain http://"))) << message->text().toStdString();
    EXPECT_FALSE(session().joined());

    allow->setChecked(true); // remembered with the other preferences
    EXPECT_TRUE(session().preferences().allowPlainHttp);
    child<QPushButton>(page, "joinButton")->click();
    ASSERT_TRUE(session().joined());
    EXPECT_EQ(session().swarm().swarmUrl, url);
    session().leave();
}

TEST_F(SwarmPageTest, TheFormBuildsTheHostedSwarmsConfig)
{
    SwarmPage page(session());
    EXPECT_EQ(child<QSpinBox>(page, "portSpin")->value(), 8470);
    child<QLineEdit>(page, "dataEdit")->setText(QStringLiteral("/data/book.txt"));
    child<QSpinBox>(page, "portSpin")->setValue(9000);
    auto *sizes = child<QComboBox>(page, "modelSizeCombo");
    ASSERT_EQ(sizes->count(), 3);

    const int expected[][3] = {{2, 64, 64}, {4, 128, 128}, {6, 256, 128}};
    for (int i = 0; i < 3; ++i) {
        sizes->setCurrentIndex(i);
        const CoordinatorConfig config = page.hostedConfig();
        EXPECT_EQ(config.model.nLayer, expected[i][0]);
        EXPECT_EQ(config.model.nEmbd, expected[i][1]);
        EXPECT_EQ(config.model.blockSize, expected[i][2]);
        EXPECT_EQ(config.model.nHead, 4);
    }
    const CoordinatorConfig config = page.hostedConfig();
    EXPECT_EQ(config.stateDir, stateDir() / "hosted");
    EXPECT_EQ(config.data, std::vector<std::filesystem::path>{"/data/book.txt"});
    EXPECT_EQ(config.listenHost, "0.0.0.0");
    EXPECT_EQ(config.listenPort, 9000);
    EXPECT_TRUE(config.tlsSelfSigned);
    EXPECT_EQ(config.training.innerSteps, 50);
    EXPECT_TRUE(config.training.timeBudgeted) << "hosted swarms budget their rounds, as the command line's default";
    EXPECT_EQ(config.training.batchSize, 8);
    EXPECT_DOUBLE_EQ(config.training.lr, 1e-3);
    EXPECT_EQ(config.training.warmupIters, 20);
    EXPECT_DOUBLE_EQ(config.heartbeatIntervalSeconds, 2.0);
    EXPECT_DOUBLE_EQ(config.gatherTimeoutSeconds, 10.0);
    EXPECT_DOUBLE_EQ(config.roundDeadlineSeconds, 120.0);
    EXPECT_EQ(config.sharding.shardTokens, 64u * 1024u);
    EXPECT_EQ(config.evalIters, 4);
}

TEST_F(SwarmPageTest, HostingWithoutAFileSaysWhatIsMissing)
{
    SwarmPage page(session());
    page.show();
    child<QPushButton>(page, "startHostingButton")->click();
    auto *message = child<QLabel>(page, "hostMessage");
    EXPECT_TRUE(message->isVisible());
    EXPECT_FALSE(message->text().isEmpty());
    child<QLineEdit>(page, "dataEdit")->setText(QString::fromStdString((dir().path() / "missing.txt").string()));
    child<QPushButton>(page, "startHostingButton")->click();
    EXPECT_TRUE(message->text().contains(QStringLiteral("missing.txt"))) << message->text().toStdString();
    EXPECT_FALSE(session().hosting());
}

TEST_F(SwarmPageTest, HostingShowsAnInviteLink)
{
    const std::filesystem::path data = dir().write("corpus.txt", test::generatedText(60'000));
    SwarmPage page(session());
    page.show();
    child<QLineEdit>(page, "dataEdit")->setText(QString::fromStdString(data.string()));
    child<QSpinBox>(page, "portSpin")->setValue(freePort());
    child<QComboBox>(page, "modelSizeCombo")->setCurrentIndex(0); // tiny

    QSignalSpy hosting(&session(), &ClientSession::hostingChanged);
    child<QPushButton>(page, "startHostingButton")->click();
    EXPECT_FALSE(child<QPushButton>(page, "startHostingButton")->isEnabled()) << "starting";
    ASSERT_TRUE(QTest::qWaitFor([&] { return !hosting.isEmpty(); }, 60'000));
    ASSERT_TRUE(hosting.last().at(0).toBool()) << hosting.last().at(2).toString().toStdString();

    auto *invite = child<QLineEdit>(page, "inviteEdit");
    EXPECT_TRUE(invite->text().startsWith(QStringLiteral("swarmtrain://join?"))) << invite->text().toStdString();
    EXPECT_TRUE(invite->isReadOnly());
    const Result<Invite> parsed = parseInvite(invite->text());
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_TRUE(parsed->swarmUrl.startsWith(QStringLiteral("https://")));
    EXPECT_TRUE(parsed->pin.startsWith(QStringLiteral("sha256//"))) << "self-signed, so pinned";

    child<QPushButton>(page, "copyInviteButton")->click();
    EXPECT_EQ(QApplication::clipboard()->text(), invite->text());

    child<QPushButton>(page, "stopHostingButton")->click();
    EXPECT_FALSE(session().hosting());
    EXPECT_TRUE(invite->text().isEmpty());
    EXPECT_TRUE(child<QPushButton>(page, "startHostingButton")->isEnabled());
}

// In a pipeline-stage swarm (issue 17) the window says which stage this PC serves, what it
// serves, and the swarm's stages with their peers and throughput: a real coordinator in pipeline
// mode, this session and a second peer (a WorkController, as the desktop client runs it).
TEST_F(SwarmPageTest, APipelineSwarmShowsThisPCsStageAndTheStages)
{
    test::TestSwarm swarm(dir().path());
    ASSERT_TRUE(swarm.start(20, {"--mode", "pipeline", "--stages", "2", "--min-peers", "2", "--microbatches-per-step", "4",
                                 "--microbatch-size", "2", "--eval-every", "0"}))
        << swarm.errors();
    SwarmPage swarmPage(session());
    DashboardPage dashboard(session());
    QSignalSpy steps(&session(), &ClientSession::roundFinished);
    ASSERT_TRUE(session().join(swarm.url()).ok());
    WorkerOptions other;
    other.swarmUrl = swarm.url();
    other.stateDir = dir().path() / "other-peer";
    other.device = "cpu";
    other.listenAddress = QStringLiteral("127.0.0.1");
    other.threads = 1;
    WorkController peer(other);
    peer.start();
    ASSERT_TRUE(steps.wait(120'000)) << session().state().detail.toStdString() << "\n" << swarm.errors();
    const RoundReport report = steps.first().first().value<RoundReport>();
    EXPECT_EQ(report.pipelineStages, 2);

    const QString role = child<QLabel>(swarmPage, "roleValue")->text();
    EXPECT_TRUE(role == QStringLiteral("Pipeline stage 1 of 2") || role == QStringLiteral("Pipeline stage 2 of 2")) << role.toStdString();
    EXPECT_EQ(child<QLabel>(dashboard, "modeValue")->text(), role);
    // The swarm's stages come with the next poll of /v1/status: one peer on each.
    ASSERT_TRUE(QTest::qWaitFor([&] { return child<QLabel>(swarmPage, "pipelineStagesValue")->text().count(QStringLiteral("1 peer")) == 2; },
                                30'000))
        << child<QLabel>(swarmPage, "pipelineStagesValue")->text().toStdString();
    ASSERT_TRUE(QTest::qWaitFor([&] { return child<QLabel>(dashboard, "speedValue")->text().contains(QStringLiteral("microbatches/s")); },
                                30'000))
        << child<QLabel>(dashboard, "speedValue")->text().toStdString();
    peer.stop();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !peer.isRunning(); }, 60'000));
}

// The leaderboard (issue 19) from a real coordinator: after a round this PC is on it, named with
// the display name set on the Settings page, in bold and marked as this PC.
TEST_F(SwarmPageTest, TheLeaderboardShowsThisPCInBoldWithTheNameFromSettings)
{
    test::TestSwarm swarm(dir().path());
    ASSERT_TRUE(swarm.start()) << swarm.errors();
    SettingsPage settingsPage(session());
    settingsPage.show();
    auto *name = child<QLineEdit>(settingsPage, "displayName");
    name->setText(QStringLiteral("Ada's <b>PC</b>"));
    QTest::keyClick(name, Qt::Key_Return);
    ASSERT_EQ(session().preferences().displayName, QStringLiteral("Ada's <b>PC</b>"));

    SwarmPage page(session());
    page.show();
    auto *table = child<QTableWidget>(page, "leaderboardTable");
    ASSERT_NE(table, nullptr);
    EXPECT_EQ(table->rowCount(), 0);
    QSignalSpy rounds(&session(), &ClientSession::roundFinished);
    ASSERT_TRUE(session().join(swarm.url()).ok());
    ASSERT_TRUE(rounds.wait(120'000)) << session().state().detail.toStdString() << "\n" << swarm.errors();

    // The credit comes with the round's close; the table with the next poll of /v1/status.
    const auto credited = [&] {
        const int row = rowNamed(*table, QStringLiteral("Ada's <b>PC</b>"));
        return row >= 0 && table->item(row, 2)->text() != QLocale().toString(0.0, 'f', 1);
    };
    ASSERT_TRUE(QTest::qWaitFor(credited, 30'000)) << swarm.errors();
    const int row = rowNamed(*table, QStringLiteral("Ada's <b>PC</b>"));
    EXPECT_EQ(table->rowCount(), 1) << "a lone peer";
    EXPECT_EQ(table->item(row, 0)->text(), QStringLiteral("1"));
    EXPECT_EQ(table->item(row, 1)->text(), QStringLiteral("Ada's <b>PC</b> (This PC)")) << "plain text, marked";
    EXPECT_TRUE(rowIsBold(*table, row));
    EXPECT_EQ(table->item(row, 1)->toolTip().size(), 32) << "the key id, which names the peer";
}

// Below the top 20, this PC's row comes last with its own rank; other rows are not bold, and a
// peer without a name shows the start of its key id.
TEST_F(SwarmPageTest, ThisPCBelowTheTopTwentyComesLastWithItsRank)
{
    SwarmPage page(session());
    page.show();
    SwarmSnapshot snapshot;
    snapshot.reachable = true;
    for (int i = 0; i < 30; ++i) {
        const QString id = QStringLiteral("%1").arg(i, 32, 16, QLatin1Char('0'));
        snapshot.leaderboard.push_back({id, 100.0 - i, 1000 - i, i % 2 ? QStringLiteral("Peer %1").arg(i) : QString()});
    }
    snapshot.ownPeerId = snapshot.leaderboard[24].peerId;
    Q_EMIT session().swarmUpdated(snapshot);

    auto *table = child<QTableWidget>(page, "leaderboardTable");
    ASSERT_EQ(table->rowCount(), 21);
    EXPECT_EQ(table->item(0, 1)->text(), snapshot.leaderboard[0].peerId.left(12)) << "no name: a short key id";
    EXPECT_EQ(table->item(1, 1)->text(), QStringLiteral("Peer 1"));
    EXPECT_EQ(table->item(19, 0)->text(), QStringLiteral("20"));
    EXPECT_FALSE(rowIsBold(*table, 19));
    EXPECT_EQ(table->item(20, 0)->text(), QStringLiteral("25"));
    EXPECT_EQ(table->item(20, 1)->text(), QStringLiteral("%1 (This PC)").arg(snapshot.leaderboard[24].peerId.left(12)));
    EXPECT_TRUE(rowIsBold(*table, 20));

    // In the top 20 it is marked where it ranks, and no row is added.
    snapshot.ownPeerId = snapshot.leaderboard[3].peerId;
    Q_EMIT session().swarmUpdated(snapshot);
    ASSERT_EQ(table->rowCount(), 20);
    EXPECT_EQ(table->item(3, 1)->text(), QStringLiteral("Peer 3 (This PC)"));
    EXPECT_TRUE(rowIsBold(*table, 3));
    EXPECT_FALSE(rowIsBold(*table, 2));
}

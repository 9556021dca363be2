// The public status page in a real browser: a real swarmtrain-coordinator on loopback trains a
// few rounds with one headless client, then Debian's headless Chromium loads GET / and the
// test reads the DOM it rendered (the validation-loss chart, the leaderboard) and saves a
// screenshot next to the GUI tests' ones. Two peers in the swarm's database carry names made
// to inject markup and script; the page must show them as text.
#include "ChildProcess.h"
#include "RawHttpClient.h"
#include "SqlCoordinatorStore.h"
#include "SwarmHarness.h"
#include "TempDir.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <iostream>
#include <regex>

using namespace swarmtrain;
using namespace std::chrono_literals;
using swarmtrain::test::ChildProcess;
using swarmtrain::test::waitUntil;

namespace {

// Peer ids are hashes of keys today, but names peers choose will travel the same way; these
// stand in for them. Each fits the status message's bound on a peer id (64 characters).
const std::string kImageName = "<img src=x onerror=\"document.title='pwned'\">";
const std::string kScriptName = "</script><script>document.title='pwned'</script>";

constexpr int kWantedLossPoints = 3; // the initial state's and two trained rounds'

// What Chromium serialises a text node's `<`, `>` and `&` as.
std::string escaped(const std::string &text)
{
    std::string out;
    for (const char c : text) {
        if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '&')
            out += "&amp;";
        else
            out += c;
    }
    return out;
}

class StatusPageTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        chromium = QStandardPaths::findExecutable(QStringLiteral("chromium")).toStdString();
        if (chromium.empty())
            GTEST_SKIP() << "chromium is not installed (Debian: apt-get install --no-install-recommends chromium); "
                            "the status page is not checked in a browser";
        dir.write("data.txt", test::generatedText(120'000));
    }

    // Hostile peers with the most credit, so they top the leaderboard; offline, so they take no
    // part in rounds.
    void plantHostilePeers()
    {
        std::filesystem::create_directories(stateDir());
        Result<std::unique_ptr<SqlCoordinatorStore>> store = SqlCoordinatorStore::openSqlite(stateDir() / "coordinator.db");
        ASSERT_TRUE(store.ok()) << store.error().message;
        double credit = 2e6;
        for (const std::string &name : {kImageName, kScriptName}) {
            PeerRecord peer;
            peer.keyId = QString::fromStdString(name);
            peer.publicKey = QByteArray(32, 'h');
            peer.credit = credit;
            peer.tokens = qint64(credit) * 8;
            credit /= 2;
            ASSERT_TRUE((*store)->savePeer(peer).ok());
        }
    }

    void startSwarm()
    {
        std::vector<std::string> flags = test::smallSwarmFlags(stateDir(), dir.path() / "data.txt");
        flags.insert(flags.end(), {"--export-every", "2"}); // the page's Download the model section
        port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, flags, dir.path());
        ASSERT_NE(port, 0) << coordinator.errors();
        url = QStringLiteral("http://127.0.0.1:%1/").arg(port);
        ASSERT_TRUE(test::startHeadlessPeer(client, SWARMTRAIN_CLIENT, url.chopped(1), dir.path(), "client",
                                            {"--listen", "127.0.0.1:0"}));
    }

    QJsonObject status(const std::string &path = "/v1/status") const
    {
        test::RawHttpClient http(10);
        if (!http.connect(port) || !http.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            return {};
        const test::RawHttpClient::Response response = http.read();
        return response.status == 200 ? QJsonDocument::fromJson(QByteArray::fromStdString(response.body)).object()
                                      : QJsonObject();
    }

    // Runs headless Chromium on the page with `flags` and returns what it printed on stdout.
    // Virtual time lets the page's first fetch and drawing finish before the DOM is dumped,
    // without waiting on the wall clock; a network fetch holds virtual time until it is answered.
    std::string runChromium(const std::vector<std::string> &flags, const std::string &name)
    {
        std::vector<std::string> args = {"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                         "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                                         "--disable-background-networking", "--disable-sync", "--hide-scrollbars",
                                         "--user-data-dir=" + (dir.path() / "chromium-profile").string(),
                                         "--virtual-time-budget=5000"};
        args.insert(args.end(), flags.begin(), flags.end());
        args.push_back(url.toStdString());
        ChildProcess browser;
        if (!browser.start(chromium, args, dir.path() / (name + ".out"), dir.path() / (name + ".err")))
            return {};
        const int exit = browser.waitForExit(std::chrono::seconds(120));
        EXPECT_EQ(exit, 0) << name << ": " << browser.errors();
        return browser.output();
    }

    std::filesystem::path stateDir() const { return dir.path() / "coordinator"; }

    std::string logs() const { return "coordinator:\n" + coordinator.errors() + "client:\n" + client.output() + client.errors(); }

    test::TempDir dir;
    std::string chromium;
    ChildProcess coordinator;
    ChildProcess client;
    int port = 0;
    QString url;
};

TEST_F(StatusPageTest, ChromiumRendersTheLossChartAndShowsHostileNamesAsText)
{
    plantHostilePeers();
    ASSERT_NO_FATAL_FAILURE(startSwarm());
    qsizetype points = 0;
    ASSERT_TRUE(waitUntil(
        [&] {
            points = status().value(QLatin1StringView("val_loss_history")).toArray().size();
            return points >= kWantedLossPoints;
        },
        300s))
        << "the swarm validated " << points << " states\n" << logs();
    ASSERT_TRUE(waitUntil([&] { return !status("/v1/model").value(QLatin1StringView("exports")).toArray().isEmpty(); }, 120s))
        << "nothing was published\n" << logs();

    // The page draws what it fetched: as many points as the status held then, or more.
    std::string dom;
    std::smatch chart;
    const std::regex chartTag(R"re(<svg id="loss-chart"[^>]*data-rendered="(\w+)" data-points="(\d+)"[^>]*>)re");
    ASSERT_TRUE(waitUntil(
        [&] {
            dom = runChromium({"--dump-dom"}, "dump-dom");
            return std::regex_search(dom, chart, chartTag) && chart[1] == "true";
        },
        180s))
        << "the chart did not render; the DOM:\n" << dom;
    const int drawn = std::stoi(chart[2].str());
    EXPECT_GE(drawn, kWantedLossPoints);
    const std::string chartSvg = dom.substr(chart.position(0), dom.find("</svg>", chart.position(0)) - chart.position(0));
    std::ptrdiff_t circles = 0;
    for (std::size_t at = chartSvg.find("<circle"); at != std::string::npos; at = chartSvg.find("<circle", at + 1))
        ++circles;
    EXPECT_EQ(circles, drawn) << chartSvg;
    EXPECT_NE(chartSvg.find("<polyline"), std::string::npos) << chartSvg;
    // Bits per byte, not nats per token: each point is its loss over ln 2 times the validation
    // text's tokens per byte, which the coordinator says.
    EXPECT_NE(chartSvg.find(">bits per byte</text>"), std::string::npos) << "the y axis has no title";
    EXPECT_NE(dom.find("id=\"loss-label\">Validation bits per byte<"), std::string::npos);
    const QJsonObject now = status();
    const double tokensPerByte = now.value(QLatin1StringView("val_tokens_per_byte")).toDouble();
    ASSERT_GT(tokensPerByte, 0.0);
    const QJsonObject first = now.value(QLatin1StringView("val_loss_history")).toArray().first().toObject();
    char expected[64];
    std::snprintf(expected, sizeof expected, "round %lld: %.4f", first.value(QLatin1StringView("round")).toInteger(),
                  first.value(QLatin1StringView("val_loss")).toDouble() / std::log(2.0) * tokensPerByte);
    EXPECT_NE(chartSvg.find(expected), std::string::npos) << "no point titled " << expected << ":\n" << chartSvg;
    EXPECT_NE(chartSvg.find(">round</text>"), std::string::npos) << "the x axis has no title";

    // The figures are filled in.
    EXPECT_EQ(dom.find("id=\"round\">–<"), std::string::npos);
    EXPECT_EQ(dom.find("id=\"peers\">–<"), std::string::npos);
    EXPECT_EQ(dom.find("id=\"throughput\">–<"), std::string::npos);
    EXPECT_NE(dom.find("<b>32</b>"), std::string::npos) << "the model's width is not shown";
    // The published model, with links to this coordinator's own files.
    EXPECT_EQ(dom.find("id=\"downloads\" hidden"), std::string::npos) << "the Download the model section is hidden";
    EXPECT_NE(dom.find("href=\"/v1/model/files/"), std::string::npos) << "no download link";
    EXPECT_NE(dom.find("tokens trained"), std::string::npos) << "the tokens trained are not shown";

    // The hostile names are text in the leaderboard's cells, and nothing they carried ran.
    const std::size_t table = dom.find("<tbody id=\"leaderboard\">");
    ASSERT_NE(table, std::string::npos) << dom;
    const std::string leaderboard = dom.substr(table, dom.find("</tbody>", table) - table);
    EXPECT_NE(leaderboard.find(">" + escaped(kImageName) + "</td>"), std::string::npos) << leaderboard;
    EXPECT_NE(leaderboard.find(">" + escaped(kScriptName) + "</td>"), std::string::npos) << leaderboard;
    EXPECT_EQ(dom.find("<img"), std::string::npos);
    EXPECT_EQ(dom.find("pwned</title>"), std::string::npos);
    std::size_t scripts = 0;
    for (std::size_t at = dom.find("<script"); at != std::string::npos; at = dom.find("<script", at + 1))
        ++scripts;
    EXPECT_EQ(scripts, 1u) << "a script element was injected";

    // The screenshot, as a person sees the page.
    const std::filesystem::path shot = dir.path() / "status-page.png";
    runChromium({"--screenshot=" + shot.string(), "--window-size=1280,900"}, "screenshot");
    const std::string png = test::readWholeFile(shot);
    ASSERT_GE(png.size(), 24u) << "no screenshot at " << shot;
    ASSERT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
    const auto bigEndian = [&](std::size_t at) {
        return (std::uint32_t(std::uint8_t(png[at])) << 24) | (std::uint32_t(std::uint8_t(png[at + 1])) << 16)
               | (std::uint32_t(std::uint8_t(png[at + 2])) << 8) | std::uint32_t(std::uint8_t(png[at + 3]));
    };
    EXPECT_EQ(bigEndian(16), 1280u); // IHDR: width, then height
    EXPECT_EQ(bigEndian(20), 900u);
    // A blank or nearly blank page compresses to a few KiB; cards, text and the chart do not.
    EXPECT_GT(png.size(), 40'000u) << "the screenshot is nearly blank";
    const std::filesystem::path folder = SWARMTRAIN_SCREENSHOT_DIR;
    std::filesystem::create_directories(folder);
    std::filesystem::copy_file(shot, folder / "status-page.png", std::filesystem::copy_options::overwrite_existing);
    std::cout << "screenshot: " << (folder / "status-page.png").string() << std::endl;
}

} // namespace

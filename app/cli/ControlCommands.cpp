// swarmtrain-cli's control commands (issue 19): they talk to a running client, desktop or
// headless, over its local socket (LocalControlServer), as boinccmd and fahctl do.
#include "ControlCommands.h"

#include "CliFlags.h"
#include "ControlClient.h"
#include "CoordinatorClient.h"
#include "Identity.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QStandardPaths>

#include <algorithm>
#include <functional>
#include <iostream>
#include <regex>

namespace swarmtrain {

namespace {

constexpr int kTimeoutMs = 10'000;

// The commands' words, translated where the client's language is installed.
struct ControlText {
    Q_DECLARE_TR_FUNCTIONS(swarmtrain::ControlCommands)
};

int fail(const QString &message)
{
    std::cerr << "swarmtrain-cli: error: " << message.toStdString() << "\n";
    return 1;
}

// The flags every control command takes.
struct Common {
    std::string stateDir;
    bool json = false;

    void add(CLI::App &app)
    {
        app.add_option("--state-dir", stateDir, "the state folder of the client to control (default: the client's own)");
        app.add_flag("--json", json, "print the answer as JSON");
    }

    // The same default as the client's --state-dir (ClientOptions.cpp).
    std::filesystem::path folder() const
    {
        const QString dir = !stateDir.empty() ? QString::fromStdString(stateDir)
                                              : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        return QDir(dir).absolutePath().toStdString();
    }
};

// "90s", "15m", "2h", "1d" into seconds.
std::optional<qint64> parseDuration(const std::string &text)
{
    static const std::regex pattern(R"(([0-9]{1,7})([smhd]))");
    std::smatch match;
    if (!std::regex_match(text, match, pattern))
        return std::nullopt;
    const qint64 unit = match[2] == "s" ? 1 : match[2] == "m" ? 60 : match[2] == "h" ? 3600 : 86400;
    return std::stoll(match[1]) * unit;
}

void printStatus(const QJsonObject &s)
{
    const auto text = [&s](const char *key) { return s.value(QLatin1StringView(key)).toString().toStdString(); };
    std::cout << text("headline") << "\n";
    if (!text("detail").empty())
        std::cout << "  " << text("detail") << "\n";
    if (s.value(QStringLiteral("joined")).toBool()) {
        std::cout << "  " << ControlText::tr("swarm: %1").arg(s.value(QStringLiteral("swarm")).toString()).toStdString() << "\n";
        std::cout << "  " << ControlText::tr("mode: %1").arg(s.value(QStringLiteral("mode")).toString()).toStdString() << "\n";
        std::cout << "  " << ControlText::tr("round %1, %2 of %3 steps")
                                 .arg(s.value(QStringLiteral("round")).toInteger())
                                 .arg(s.value(QStringLiteral("steps_done")).toInteger())
                                 .arg(s.value(QStringLiteral("steps")).toInteger())
                                 .toStdString()
                  << "\n";
    }
    if (s.value(QStringLiteral("paused")).toBool()) {
        const QDateTime until = QDateTime::fromString(s.value(QStringLiteral("paused_until")).toString(), Qt::ISODate);
        std::cout << "  "
                  << (until.isValid() ? ControlText::tr("paused (%1) until %2")
                                            .arg(s.value(QStringLiteral("pause_reason")).toString(),
                                                 QLocale().toString(until.toLocalTime(), QLocale::ShortFormat))
                                      : ControlText::tr("paused (%1)").arg(s.value(QStringLiteral("pause_reason")).toString()))
                         .toStdString()
                  << (s.value(QStringLiteral("released")).toBool() ? ControlText::tr(", GPU memory released").toStdString() : "")
                  << "\n";
    }
}

void printStats(const QJsonObject &answer)
{
    const QJsonObject t = answer.value(QStringLiteral("totals")).toObject();
    std::cout << ControlText::tr("%1 rounds contributed, %2 accepted, %3 not accepted")
                     .arg(t.value(QStringLiteral("contributions")).toInteger())
                     .arg(t.value(QStringLiteral("accepted_rounds")).toInteger())
                     .arg(t.value(QStringLiteral("rejected_rounds")).toInteger())
                     .toStdString()
              << "\n"
              << ControlText::tr("%L1 tokens, %2 compute hours, credit %3")
                     .arg(t.value(QStringLiteral("tokens")).toInteger())
                     .arg(t.value(QStringLiteral("compute_hours")).toDouble(), 0, 'f', 2)
                     .arg(t.value(QStringLiteral("credit")).toDouble(), 0, 'f', 1)
                     .toStdString()
              << "\n";
    for (const QJsonValue &value : answer.value(QStringLiteral("days")).toArray()) {
        const QJsonObject day = value.toObject();
        std::cout << "  " << day.value(QStringLiteral("day")).toString().toStdString() << "  "
                  << ControlText::tr("%1 min, %L2 tokens, credit %3")
                         .arg(day.value(QStringLiteral("compute_seconds")).toDouble() / 60.0, 0, 'f', 1)
                         .arg(day.value(QStringLiteral("tokens")).toInteger())
                         .arg(day.value(QStringLiteral("credit")).toDouble(), 0, 'f', 1)
                         .toStdString()
                  << "\n";
    }
}

void printEntry(const QJsonObject &entry, bool json)
{
    if (json) {
        std::cout << QJsonDocument(entry).toJson(QJsonDocument::Compact).toStdString() << std::endl;
        return;
    }
    std::cout << entry.value(QStringLiteral("at")).toString().toStdString() << " "
              << entry.value(QStringLiteral("level")).toString().toStdString() << " "
              << entry.value(QStringLiteral("category")).toString().toStdString() << ": "
              << entry.value(QStringLiteral("text")).toString().toStdString() << std::endl;
}

// Sends `request` and prints the answer; `log --follow` then prints each new line until the
// client goes away (or Ctrl-C).
int exchange(const Common &common, const QJsonObject &request, bool follow)
{
    Result<std::unique_ptr<ControlClient>> client = ControlClient::connect(common.folder(), kTimeoutMs);
    if (!client)
        return fail(QString::fromStdString(client.error().message));
    Result<QJsonObject> answer = (*client)->request(request, kTimeoutMs);
    if (!answer)
        return fail(QString::fromStdString(answer.error().message));
    const QString command = request.value(QStringLiteral("command")).toString();
    if (command == QLatin1StringView("log")) {
        for (const QJsonValue &entry : answer->value(QStringLiteral("entries")).toArray())
            printEntry(entry.toObject(), common.json);
        while (follow) {
            Result<QJsonObject> line = (*client)->next(-1);
            if (!line)
                return fail(QString::fromStdString(line.error().message));
            printEntry(line->value(QStringLiteral("entry")).toObject(), common.json);
        }
        return 0;
    }
    if (common.json)
        std::cout << QJsonDocument(*answer).toJson(QJsonDocument::Compact).toStdString() << std::endl;
    else if (command == QLatin1StringView("stats"))
        printStats(*answer);
    else
        printStatus(answer->value(QStringLiteral("status")).toObject());
    return 0;
}

int parseAndRun(CLI::App &app, const std::vector<std::string> &args, const std::function<int()> &run)
{
    if (flags::helpAsked(args)) {
        std::cout << app.help();
        return 0;
    }
    if (Result<void> parsed = flags::parse(app, args); !parsed) {
        std::cerr << app.help();
        return fail(QString::fromStdString(parsed.error().message));
    }
    return run();
}

} // namespace

std::vector<std::pair<std::string, std::string>> controlCommands()
{
    return {{"status", "what the running client is doing"},
            {"pause", "pause training, for a while with --for 30m"},
            {"resume", "resume training"},
            {"release", "pause and give the GPU's memory back"},
            {"stats", "what this PC has contributed, per day with --days N"},
            {"log", "the running client's recent log, --follow for new lines"},
            {"swarm", "swarm join URL|INVITE, or swarm leave"}};
}

std::optional<int> runControlCommand(const std::string &command, const std::vector<std::string> &args)
{
    static const std::vector<std::string> names = {"status", "pause", "resume", "release", "stats", "log", "swarm"};
    if (std::find(names.begin(), names.end(), command) == names.end())
        return std::nullopt;
    int argc = 1;
    char name[] = "swarmtrain-cli";
    char *argv[] = {name, nullptr};
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("SwarmTrain"));
    QCoreApplication::setOrganizationName(QStringLiteral("SwarmTrain"));

    CLI::App cli("swarmtrain-cli " + command, "swarmtrain-cli " + command);
    flags::configure(cli);
    Common common;
    common.add(cli);
    QJsonObject request{{QStringLiteral("command"), QString::fromStdString(command)}};
    std::string duration;
    int days = 7;
    int lines = 50;
    bool follow = false;
    std::string verb;
    std::string swarm;
    if (command == "pause") {
        cli.add_option("--for", duration, "how long, e.g. 90s, 15m, 2h or 1d (default: until resume)");
    } else if (command == "stats") {
        cli.add_option("--days", days, "days to list, today included")->transform(flags::wholeNumberIn(1, 366));
    } else if (command == "log") {
        cli.add_option("--lines", lines, "recent lines to print")->transform(flags::wholeNumberIn(0, 2000));
        cli.add_flag("--follow,-f", follow, "keep printing new lines");
    } else if (command == "swarm") {
        cli.add_option("action", verb, "join or leave")->required()->check(flags::oneOf({"join", "leave"}));
        cli.add_option("swarm", swarm, "the coordinator's URL or an invite link (join)");
    }
    return parseAndRun(cli, args, [&]() -> int {
        if (command == "pause" && !duration.empty()) {
            const std::optional<qint64> seconds = parseDuration(duration);
            if (!seconds || *seconds < 1 || *seconds > 30 * 86400)
                return fail(ControlText::tr("--for needs a duration from 1s to 30d, such as 90s, 15m, 2h or 1d"));
            request.insert(QStringLiteral("seconds"), *seconds);
        } else if (command == "stats") {
            request.insert(QStringLiteral("days"), days);
        } else if (command == "log") {
            request.insert(QStringLiteral("lines"), lines);
            request.insert(QStringLiteral("follow"), follow);
        } else if (command == "swarm") {
            if (verb == "join" && swarm.empty())
                return fail(ControlText::tr("swarm join needs the swarm's URL or invite link"));
            if (verb == "leave" && !swarm.empty())
                return fail(ControlText::tr("swarm leave takes no URL"));
            request.insert(QStringLiteral("command"), QString::fromStdString(verb));
            if (verb == "join")
                request.insert(QStringLiteral("swarm"), QString::fromStdString(swarm));
        }
        return exchange(common, request, follow);
    });
}

Result<void> downloadSwarmState(const std::string &url, const std::filesystem::path &file)
{
    // The state is public: any identity may fetch it, so a throwaway one signs the request.
    Result<Identity> identity = Identity::generate();
    if (!identity)
        return identity.error();
    CoordinatorClientOptions options;
    options.baseUrl = QString::fromStdString(url);
    CoordinatorClient client(*identity, options);
    return client.download(QStringLiteral("/v1/checkpoint"), file, QString());
}

} // namespace swarmtrain

// swarmtrain-hostile: `swarmtrain --headless` with a misbehaviour switch, for the adversary tests
// only (built with the tests, never installed or packaged):
//   swarmtrain-hostile --misbehave scale100|sign-flip|zero|noise|equivocate|lying-owner|lying-checker|
//                       colluder|withhold-from-checkers|far-future-frames|vanish-in-all-reduce|stall|
//                       forge-hash|forge-stage-state|stage-gradients-x-4|stage-zero-activations|
//                       stage-noise|coalition:KEY,KEY,...[@ROUND][/honest-referee]
//                      [the options of swarmtrain --headless]
#include "ClientOptions.h"
#include "CryptoLifetime.h"
#include "GpuProbe.h"
#include "Headless.h"
#include "Misbehaviour.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>

using namespace swarmtrain;

namespace {

double rms(const std::vector<float> &values)
{
    double sum = 0.0;
    for (float x : values)
        sum += double(x) * x;
    return values.empty() ? 0.0 : std::sqrt(sum / double(values.size()));
}

std::optional<Misbehaviour> misbehaviourNamed(const QString &name)
{
    Misbehaviour m;
    if (name == QLatin1StringView("scale100")) {
        m.pseudoGradient = [](std::vector<float> &g) {
            for (float &x : g)
                x *= 100.0f;
        };
    } else if (name == QLatin1StringView("sign-flip")) {
        m.pseudoGradient = [](std::vector<float> &g) {
            for (float &x : g)
                x = -x;
        };
    } else if (name == QLatin1StringView("zero")) {
        m.pseudoGradient = [](std::vector<float> &g) { std::fill(g.begin(), g.end(), 0.0f); };
    } else if (name == QLatin1StringView("noise")) {
        // Random values of the honest update's typical size: a freeloader that did no work.
        m.pseudoGradient = [rng = std::make_shared<std::mt19937>(42)](std::vector<float> &g) {
            std::normal_distribution<float> normal(0.0f, float(rms(g)));
            for (float &x : g)
                x = normal(*rng);
        };
    } else if (name == QLatin1StringView("lying-owner")) {
        m.ownerAverage = [](std::vector<float> &average) { std::fill(average.begin(), average.end(), 0.01f); };
    } else if (name == QLatin1StringView("lying-checker")) {
        // Disputes every owner whose range it checks with an average of its own (x -4).
        m.checkerAverage = [](std::vector<float> &average) {
            for (float &x : average)
                x *= -4.0f;
        };
    } else if (name == QLatin1StringView("colluder")) {
        // One of two partners that decide the ranges they check and referee: as a checker it
        // disputes the owner with an average of its own (x -4), as a referee it waits for the
        // checker's word and rules for it, and it applies a disputed range as the referee ruled,
        // not as the coordinator.
        m.checkerAverage = [](std::vector<float> &average) {
            for (float &x : average)
                x *= -4.0f;
        };
        m.refereeForChecker = true;
        m.ignoreRulings = true;
    } else if (name.startsWith(QLatin1StringView("coalition:"))) {
        // One of a coalition, by its members' keys (coalition:KEY,KEY[@ROUND][/honest-referee]):
        // it vouches for an ally's average as its checker or referee, and makes up its own (x -4)
        // only where an ally checks it, so no honest checker ever disputes it; with @ROUND,
        // patient: it behaves until that round; with /honest-referee, it lies only where its
        // referee is not an ally either. It follows the coordinator's rulings like an honest
        // client, and says on its output when it lies.
        const QString coalition = name.mid(10).section(QLatin1Char('/'), 0, 0);
        m.allies = coalition.section(QLatin1Char('@'), 0, 0).split(QLatin1Char(','), Qt::SkipEmptyParts);
        m.fromRound = coalition.section(QLatin1Char('@'), 1).toULongLong();
        m.liesUnderHonestReferee = name.endsWith(QLatin1StringView("/honest-referee"));
        m.ownerAverage = [](std::vector<float> &average) {
            for (float &x : average)
                x *= -4.0f;
            std::cout << "coalition: made up this peer's average" << std::endl;
        };
    } else if (name == QLatin1StringView("equivocate")) {
        m.equivocate = true;
    } else if (name == QLatin1StringView("withhold-from-checkers")) {
        m.withholdFromCheckers = true;
    } else if (name == QLatin1StringView("stall")) {
        m.stall = true;
    } else if (name == QLatin1StringView("forge-hash")) {
        m.reportedHash = QString(64, QLatin1Char('f')); // the same for every Sybil
    } else if (name == QLatin1StringView("forge-stage-state")) {
        // One bit of the first parameter's value flipped (after the 20-byte header): finite, and
        // a state no replica holds.
        m.stageState = [](QByteArray &state) {
            if (state.size() > 20)
                state[20] = char(state[20] ^ 0x01);
        };
    } else if (name == QLatin1StringView("stage-gradients-x-4")) {
        // A pipeline stage peer whose backward answers are its input gradients scaled by -4.
        m.stageAnswer = [](std::vector<float> &values, bool backward) {
            if (backward)
                for (float &x : values)
                    x *= -4.0f;
        };
    } else if (name == QLatin1StringView("stage-zero-activations")) {
        m.stageAnswer = [](std::vector<float> &values, bool backward) {
            if (!backward)
                std::fill(values.begin(), values.end(), 0.0f);
        };
    } else if (name == QLatin1StringView("stage-noise")) {
        // Noise of the honest answer's size, forward and backward: a stage peer that computes nothing.
        m.stageAnswer = [rng = std::make_shared<std::mt19937>(7)](std::vector<float> &values, bool) {
            std::normal_distribution<float> normal(0.0f, float(rms(values)));
            for (float &x : values)
                x = normal(*rng);
        };
    } else if (name == QLatin1StringView("vanish-in-all-reduce")) {
        // Not hostile, only mortal: the process ends as its second all-reduce begins, after the
        // group formed and before its pieces go out (a PC switched off mid-step).
        m.pseudoGradient = [calls = std::make_shared<int>(0)](std::vector<float> &) {
            if (++*calls == 2) {
                std::cout << "vanishing in an all-reduce" << std::endl;
                std::_Exit(137);
            }
        };
    } else if (name == QLatin1StringView("far-future-frames")) {
        m.farFutureBytes = 64ll << 20;
    } else {
        return std::nullopt;
    }
    return m;
}

} // namespace

int main(int argc, char **argv)
{
    keepCryptoUntilExit();
    if (argc >= 2 && std::strcmp(argv[1], "--gpu-probe-child") == 0)
        return runGpuProbeChild(argc - 1, argv + 1);

    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("SwarmTrain"));
    QStringList arguments = app.arguments();
    const qsizetype flag = arguments.indexOf(QStringLiteral("--misbehave"));
    if (flag < 0 || flag + 1 >= arguments.size()) {
        std::cerr << "swarmtrain-hostile: --misbehave KIND is needed\n";
        return 2;
    }
    const QString kind = arguments.at(flag + 1);
    arguments.remove(flag, 2);
    std::optional<Misbehaviour> misbehaviour = misbehaviourNamed(kind);
    if (!misbehaviour) {
        std::cerr << "swarmtrain-hostile: unknown misbehaviour " << kind.toStdString() << "\n";
        return 2;
    }
    Result<ClientCommandLine> command = parseClientCommandLine(arguments);
    if (!command) {
        std::cerr << "swarmtrain-hostile: " << command.error().message << "\n";
        return 2;
    }
    command->worker.misbehaviour = *misbehaviour;
    std::cout << "misbehaving: " << kind.toStdString() << std::endl;
    return runHeadless(app, *command);
}

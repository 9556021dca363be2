#include "Preferences.h"

#include "TempDir.h"

#include <QSettings>

#include <gtest/gtest.h>

#include <memory>

namespace swarmtrain {
namespace {

class PreferencesTest : public ::testing::Test {
protected:
    QString file() const { return QString::fromStdString((dir.path() / "settings.ini").string()); }
    std::unique_ptr<QSettings> open() const { return std::make_unique<QSettings>(file(), QSettings::IniFormat); }

    // Writes raw values as a person editing the INI file would, then loads them fresh.
    Preferences loadWith(std::initializer_list<std::pair<const char *, QVariant>> values) const
    {
        {
            auto settings = open();
            for (const auto &[key, value] : values)
                settings->setValue(QLatin1StringView(key), value);
        }
        return loadPreferences(*open());
    }

    test::TempDir dir;
};

Preferences everythingChanged()
{
    Preferences p;
    p.idleMinutes = 17;
    p.pauseOnBattery = false;
    p.exclusiveApps = {QStringLiteral("eldenring.exe"), QStringLiteral("Cyberpunk2077.exe"), QStringLiteral("steam")};
    p.maxGpuUtilization = 55;
    p.maxGpuMemoryMiB = 6144;
    p.gpuTemperatureLimit = 72;
    p.gpuUse = GpuUse::Chosen;
    p.gpuUuids = {QStringLiteral("GPU-4f1c"), QStringLiteral("GPU-90ab")};
    p.scheduleEnabled = true;
    p.scheduleStart = QTime(23, 30);
    p.scheduleEnd = QTime(6, 15);
    p.startAtLogin = true;
    p.language = QStringLiteral("pt_BR");
    p.diskLimitGiB = 42;
    p.trayNoticeShown = true;
    p.swarmUrl = QStringLiteral("https://swarm.example.org:8443");
    p.swarmPin = QStringLiteral("sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    return p;
}

TEST_F(PreferencesTest, EveryFieldRoundTripsThroughAnIniFile)
{
    const Preferences saved = everythingChanged();
    ASSERT_NE(saved, Preferences{}) << "the test must change every field from its default";
    {
        auto settings = open();
        savePreferences(*settings, saved);
    }
    const Preferences loaded = loadPreferences(*open());
    EXPECT_EQ(loaded.idleMinutes, saved.idleMinutes);
    EXPECT_EQ(loaded.pauseOnBattery, saved.pauseOnBattery);
    EXPECT_EQ(loaded.exclusiveApps, saved.exclusiveApps);
    EXPECT_EQ(loaded.maxGpuUtilization, saved.maxGpuUtilization);
    EXPECT_EQ(loaded.maxGpuMemoryMiB, saved.maxGpuMemoryMiB);
    EXPECT_EQ(loaded.gpuTemperatureLimit, saved.gpuTemperatureLimit);
    EXPECT_EQ(loaded.gpuUse, saved.gpuUse);
    EXPECT_EQ(loaded.gpuUuids, saved.gpuUuids);
    EXPECT_EQ(loaded.scheduleEnabled, saved.scheduleEnabled);
    EXPECT_EQ(loaded.scheduleStart, saved.scheduleStart);
    EXPECT_EQ(loaded.scheduleEnd, saved.scheduleEnd);
    EXPECT_EQ(loaded.startAtLogin, saved.startAtLogin);
    EXPECT_EQ(loaded.language, saved.language);
    EXPECT_EQ(loaded.diskLimitGiB, saved.diskLimitGiB);
    EXPECT_EQ(loaded.trayNoticeShown, saved.trayNoticeShown);
    EXPECT_EQ(loaded.swarmUrl, saved.swarmUrl);
    EXPECT_EQ(loaded.swarmPin, saved.swarmPin);
    EXPECT_EQ(loaded, saved); // also catches a field added later but left out of the table
}

TEST_F(PreferencesTest, ListsOfOneAndNoneRoundTrip)
{
    // An INI file writes a one-element list like a plain string and an empty list specially.
    for (const QStringList &apps : {QStringList{}, QStringList{QStringLiteral("game.exe")},
                                    QStringList{QStringLiteral("a game.exe"), QStringLiteral("b,c.exe")}}) {
        Preferences saved;
        saved.exclusiveApps = apps;
        {
            auto settings = open();
            savePreferences(*settings, saved);
        }
        EXPECT_EQ(loadPreferences(*open()).exclusiveApps, apps);
    }
}

TEST_F(PreferencesTest, MissingValuesAreTheDefaults)
{
    EXPECT_EQ(loadPreferences(*open()), Preferences{});
    const Preferences partial = loadWith({{"throttle/idleMinutes", 9}});
    Preferences expected;
    expected.idleMinutes = 9;
    EXPECT_EQ(partial, expected);
}

TEST_F(PreferencesTest, SavingWritesTheGroupedKeys)
{
    {
        auto settings = open();
        savePreferences(*settings, everythingChanged());
    }
    const auto settings = open();
    EXPECT_EQ(settings->value(QStringLiteral("throttle/idleMinutes")).toInt(), 17);
    EXPECT_EQ(settings->value(QStringLiteral("throttle/scheduleStart")).toString(), QStringLiteral("23:30"));
    EXPECT_EQ(settings->value(QStringLiteral("app/language")).toString(), QStringLiteral("pt_BR"));
    EXPECT_EQ(settings->value(QStringLiteral("swarm/url")).toString(), QStringLiteral("https://swarm.example.org:8443"));
    EXPECT_EQ(settings->value(QStringLiteral("device/gpuUse")).toString(), QStringLiteral("chosen"));
    EXPECT_EQ(settings->childGroups(), (QStringList{QStringLiteral("app"), QStringLiteral("device"), QStringLiteral("swarm"),
                                                    QStringLiteral("throttle")}));
}

TEST_F(PreferencesTest, MalformedValuesGiveTheDefaults)
{
    const Preferences p = loadWith({{"throttle/idleMinutes", QStringLiteral("soon")},
                                    {"throttle/pauseOnBattery", QStringLiteral("maybe")},
                                    {"throttle/maxGpuUtilization", QStringLiteral("50%")},
                                    {"throttle/maxGpuMemoryMiB", QStringLiteral("")},
                                    {"throttle/gpuTemperatureLimit", QStringLiteral("7.5e1")},
                                    {"throttle/scheduleEnabled", QStringLiteral("yes please")},
                                    {"throttle/scheduleStart", QStringLiteral("25:00")},
                                    {"throttle/scheduleEnd", QStringLiteral("noon")},
                                    {"app/startAtLogin", QStringLiteral("2")},
                                    {"app/diskLimitGiB", QStringLiteral("ten")},
                                    {"app/trayNoticeShown", QStringLiteral("")},
                                    {"device/gpuUse", QStringLiteral("some of them")}});
    EXPECT_EQ(p, Preferences{});
}

TEST_F(PreferencesTest, ValuesOutsideTheirRangeAreClamped)
{
    const Preferences low = loadWith({{"throttle/idleMinutes", -5},
                                      {"throttle/maxGpuUtilization", 0},
                                      {"throttle/maxGpuMemoryMiB", -1},
                                      {"throttle/gpuTemperatureLimit", 20},
                                      {"app/diskLimitGiB", 0}});
    EXPECT_EQ(low.idleMinutes, 0);
    EXPECT_EQ(low.maxGpuUtilization, 10);
    EXPECT_EQ(low.maxGpuMemoryMiB, 0);
    EXPECT_EQ(low.gpuTemperatureLimit, 50);
    EXPECT_EQ(low.diskLimitGiB, 1);

    const Preferences high = loadWith({{"throttle/idleMinutes", 100000},
                                       {"throttle/maxGpuUtilization", 250},
                                       {"throttle/maxGpuMemoryMiB", QStringLiteral("99999999999")},
                                       {"throttle/gpuTemperatureLimit", 130},
                                       {"app/diskLimitGiB", 5000}});
    EXPECT_EQ(high.idleMinutes, 240);
    EXPECT_EQ(high.maxGpuUtilization, 100);
    EXPECT_EQ(high.maxGpuMemoryMiB, 1048576);
    EXPECT_EQ(high.gpuTemperatureLimit, 100);
    EXPECT_EQ(high.diskLimitGiB, 1000);
}

TEST_F(PreferencesTest, HandWrittenValuesAreRead)
{
    const Preferences p = loadWith({{"throttle/pauseOnBattery", QStringLiteral(" FALSE ")},
                                    {"throttle/scheduleEnabled", QStringLiteral("1")},
                                    {"throttle/idleMinutes", QStringLiteral(" 12 ")},
                                    {"throttle/exclusiveApps", QStringList{QStringLiteral(" game.exe "), QString(),
                                                                            QStringLiteral("game.exe")}}});
    EXPECT_FALSE(p.pauseOnBattery);
    EXPECT_TRUE(p.scheduleEnabled);
    EXPECT_EQ(p.idleMinutes, 12);
    EXPECT_EQ(p.exclusiveApps, QStringList{QStringLiteral("game.exe")}); // trimmed, no blanks, no repeats
    EXPECT_EQ(loadWith({{"device/gpuUse", QStringLiteral(" None ")}}).gpuUse, GpuUse::None);
}

TEST_F(PreferencesTest, ThrottlePrefsMapping)
{
    Preferences p = everythingChanged();
    ThrottlePrefs t = throttlePrefs(p);
    EXPECT_DOUBLE_EQ(t.idleMinutes, 17.0);
    EXPECT_FALSE(t.pauseOnBattery);
    EXPECT_EQ(t.exclusiveApps, (std::vector<std::string>{"eldenring.exe", "Cyberpunk2077.exe", "steam"}));
    EXPECT_DOUBLE_EQ(t.maxDuty, 0.55);
    EXPECT_DOUBLE_EQ(t.gpuTemperatureLimit, 72.0);
    ASSERT_TRUE(t.scheduleStartMinute && t.scheduleEndMinute);
    EXPECT_EQ(*t.scheduleStartMinute, 23 * 60 + 30);
    EXPECT_EQ(*t.scheduleEndMinute, 6 * 60 + 15);

    p.scheduleEnabled = false; // the times are kept, but do not apply
    t = throttlePrefs(p);
    EXPECT_FALSE(t.scheduleStartMinute);
    EXPECT_FALSE(t.scheduleEndMinute);

    const ThrottlePrefs defaults = throttlePrefs(Preferences{});
    EXPECT_DOUBLE_EQ(defaults.maxDuty, 1.0);
    EXPECT_DOUBLE_EQ(defaults.idleMinutes, 3.0);
    EXPECT_TRUE(defaults.pauseOnBattery);
    EXPECT_TRUE(defaults.exclusiveApps.empty());
}

} // namespace
} // namespace swarmtrain

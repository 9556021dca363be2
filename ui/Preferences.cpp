#include "Preferences.h"

#include "DisplayName.h"

#include <QSettings>
#include <QVariant>

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

namespace swarmtrain {

namespace {

// How a value of each member type is read from and written to QSettings. A value that does not
// decode gives nullopt, so the entry keeps its default. Values are stored as plain text
// ("true", "42", "22:00") so the INI file stays readable and editable by hand.
template <typename T>
struct Codec;

template <>
struct Codec<bool> {
    static std::optional<bool> decode(const QVariant &value)
    {
        if (value.typeId() == QMetaType::Bool)
            return value.toBool();
        const QString text = value.toString().trimmed().toLower();
        if (text == QLatin1StringView("true") || text == QLatin1StringView("1"))
            return true;
        if (text == QLatin1StringView("false") || text == QLatin1StringView("0"))
            return false;
        return std::nullopt; // QVariant::toBool() would read "maybe" as true
    }
    static QVariant encode(bool value) { return value; }
};

template <>
struct Codec<int> {
    static std::optional<qint64> decode(const QVariant &value)
    {
        bool ok = false;
        const qint64 number = value.toString().trimmed().toLongLong(&ok);
        return ok ? std::optional<qint64>(number) : std::nullopt;
    }
    static QVariant encode(int value) { return value; }
};

template <>
struct Codec<QString> {
    static std::optional<QString> decode(const QVariant &value)
    {
        if (!value.canConvert<QString>() || value.typeId() == QMetaType::QStringList)
            return std::nullopt;
        return value.toString().trimmed();
    }
    static QVariant encode(const QString &value) { return value; }
};

template <>
struct Codec<QStringList> {
    // INI files read a one-element list back as a plain string, and an empty one as "".
    static std::optional<QStringList> decode(const QVariant &value)
    {
        QStringList items;
        if (value.typeId() == QMetaType::QStringList)
            items = value.toStringList();
        else if (value.typeId() == QMetaType::QString)
            items = QStringList{value.toString()};
        else
            return std::nullopt;
        QStringList cleaned;
        for (const QString &item : std::as_const(items)) {
            const QString name = item.trimmed();
            if (!name.isEmpty() && !cleaned.contains(name))
                cleaned.append(name);
        }
        return cleaned;
    }
    static QVariant encode(const QStringList &value) { return value; }
};

template <>
struct Codec<QTime> {
    static std::optional<QTime> decode(const QVariant &value)
    {
        const QTime time = value.typeId() == QMetaType::QTime
                               ? value.toTime()
                               : QTime::fromString(value.toString().trimmed(), QStringLiteral("HH:mm"));
        return time.isValid() ? std::optional<QTime>(time) : std::nullopt;
    }
    static QVariant encode(const QTime &value) { return value.toString(QStringLiteral("HH:mm")); }
};

template <>
struct Codec<GpuUse> {
    static constexpr std::pair<GpuUse, const char *> kNames[] = {
        {GpuUse::Automatic, "automatic"}, {GpuUse::Chosen, "chosen"}, {GpuUse::None, "none"}};
    static std::optional<GpuUse> decode(const QVariant &value)
    {
        const QString text = value.toString().trimmed().toLower();
        for (const auto &[use, name] : kNames) {
            if (text == QLatin1StringView(name))
                return use;
        }
        return std::nullopt;
    }
    static QVariant encode(GpuUse value)
    {
        for (const auto &[use, name] : kNames) {
            if (use == value)
                return QString::fromLatin1(name);
        }
        return QString();
    }
};

// One row of the settings table: the key and the member it fills. The default is the member's
// initializer in Preferences.h, so it is written down once. Integers also carry their range.
template <typename T>
struct Setting {
    const char *key;
    T Preferences::*member;
    int min = 0;
    int max = 0;
};

// Every stored preference, grouped by what it is about.
constexpr auto kSettings = std::make_tuple(
    Setting<int>{"throttle/idleMinutes", &Preferences::idleMinutes, 0, 240},
    Setting<bool>{"throttle/pauseOnBattery", &Preferences::pauseOnBattery},
    Setting<QStringList>{"throttle/exclusiveApps", &Preferences::exclusiveApps},
    Setting<int>{"throttle/maxGpuUtilization", &Preferences::maxGpuUtilization, 10, 100},
    Setting<int>{"throttle/maxGpuMemoryMiB", &Preferences::maxGpuMemoryMiB, 0, 1048576},
    Setting<int>{"throttle/gpuTemperatureLimit", &Preferences::gpuTemperatureLimit, 50, 100},
    Setting<GpuUse>{"device/gpuUse", &Preferences::gpuUse},
    Setting<QStringList>{"device/gpuUuids", &Preferences::gpuUuids},
    Setting<bool>{"throttle/scheduleEnabled", &Preferences::scheduleEnabled},
    Setting<QTime>{"throttle/scheduleStart", &Preferences::scheduleStart},
    Setting<QTime>{"throttle/scheduleEnd", &Preferences::scheduleEnd},
    Setting<bool>{"app/startAtLogin", &Preferences::startAtLogin},
    Setting<QString>{"app/language", &Preferences::language},
    Setting<int>{"app/diskLimitGiB", &Preferences::diskLimitGiB, 1, 1000},
    Setting<bool>{"app/trayNoticeShown", &Preferences::trayNoticeShown},
    Setting<QString>{"swarm/url", &Preferences::swarmUrl},
    Setting<QString>{"swarm/pin", &Preferences::swarmPin},
    Setting<QString>{"swarm/invite_token", &Preferences::swarmInviteToken},
    Setting<bool>{"swarm/allowPlainHttp", &Preferences::allowPlainHttp},
    Setting<QString>{"swarm/displayName", &Preferences::displayName});

template <typename F>
void forEachSetting(F &&f)
{
    std::apply([&](const auto &...setting) { (f(setting), ...); }, kSettings);
}

template <typename T>
void load(const QSettings &settings, const Setting<T> &setting, Preferences &preferences)
{
    const QVariant stored = settings.value(QLatin1StringView(setting.key));
    if (!stored.isValid())
        return;
    const auto decoded = Codec<T>::decode(stored);
    if (!decoded)
        return;
    if constexpr (std::is_same_v<T, int>)
        preferences.*setting.member = int(std::clamp<qint64>(*decoded, setting.min, setting.max));
    else
        preferences.*setting.member = *decoded;
}

template <typename T>
void save(QSettings &settings, const Setting<T> &setting, const Preferences &preferences)
{
    settings.setValue(QLatin1StringView(setting.key), Codec<T>::encode(preferences.*setting.member));
}

} // namespace

Preferences loadPreferences(const QSettings &settings)
{
    Preferences preferences;
    forEachSetting([&](const auto &setting) { load(settings, setting, preferences); });
    // A name edited by hand into one the coordinator would refuse is no name, not a failed join.
    const DisplayNameCheck name = validateDisplayName(preferences.displayName);
    preferences.displayName = name.ok() ? name.name : QString();
    return preferences;
}

void savePreferences(QSettings &settings, const Preferences &preferences)
{
    forEachSetting([&](const auto &setting) { save(settings, setting, preferences); });
}

ThrottlePrefs throttlePrefs(const Preferences &preferences)
{
    ThrottlePrefs prefs;
    prefs.idleMinutes = preferences.idleMinutes;
    prefs.pauseOnBattery = preferences.pauseOnBattery;
    prefs.exclusiveApps.reserve(std::size_t(preferences.exclusiveApps.size()));
    for (const QString &app : preferences.exclusiveApps)
        prefs.exclusiveApps.push_back(app.toStdString());
    prefs.maxDuty = preferences.maxGpuUtilization / 100.0;
    prefs.gpuTemperatureLimit = preferences.gpuTemperatureLimit;
    if (preferences.scheduleEnabled) {
        const auto minuteOfDay = [](const QTime &time) { return time.hour() * 60 + time.minute(); };
        prefs.scheduleStartMinute = minuteOfDay(preferences.scheduleStart);
        prefs.scheduleEndMinute = minuteOfDay(preferences.scheduleEnd);
    }
    return prefs;
}

} // namespace swarmtrain

#pragma once

#include "IdleSource.h"

#include <QDBusConnection>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

namespace swarmtrain {

// One D-Bus method that answers the session's idle time, and the unit of its answer.
struct DbusIdleMethod {
    QString service;
    QStringList paths; // tried in order until one answers
    QString interface;
    QString method;
    double secondsPerUnit = 1.0;

    // GNOME: GetIdletime on org.gnome.Mutter.IdleMonitor, milliseconds (uint64).
    static DbusIdleMethod gnomeMutter();
    // KDE and others: GetSessionIdleTime on org.freedesktop.ScreenSaver, seconds (uint32).
    static DbusIdleMethod freedesktopScreenSaver();
};

// Idle time from a desktop's D-Bus service. ThrottleMonitor asks every 200 ms on the GUI thread,
// so each call is bounded by a short timeout, and a service that is absent, refuses or hangs is
// left alone (unknown) for `reprobe` before it is asked again.
class DbusIdleSource : public IdleSource {
public:
    struct Timing {
        std::chrono::milliseconds callTimeout{200};
        std::chrono::milliseconds reprobe{30'000};
    };

    DbusIdleSource(QDBusConnection bus, DbusIdleMethod method);
    DbusIdleSource(QDBusConnection bus, DbusIdleMethod method, Timing timing);
    std::optional<double> idleSeconds() const override;

private:
    // `serviceAnswered`: false when the service is absent or did not answer in time.
    std::optional<double> ask(const QString &path, bool &serviceAnswered) const;
    std::optional<double> probe() const;

    QDBusConnection m_bus;
    DbusIdleMethod m_method;
    Timing m_timing;
    mutable std::optional<QString> m_answeringPath;
    mutable std::optional<std::chrono::steady_clock::time_point> m_leftAloneUntil;
};

} // namespace swarmtrain

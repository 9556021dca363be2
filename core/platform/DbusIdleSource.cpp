#include "DbusIdleSource.h"

#include <QDBusMessage>

namespace swarmtrain {

DbusIdleMethod DbusIdleMethod::gnomeMutter()
{
    return {QStringLiteral("org.gnome.Mutter.IdleMonitor"), {QStringLiteral("/org/gnome/Mutter/IdleMonitor/Core")},
            QStringLiteral("org.gnome.Mutter.IdleMonitor"), QStringLiteral("GetIdletime"), 0.001};
}

DbusIdleMethod DbusIdleMethod::freedesktopScreenSaver()
{
    // KDE serves both paths; some other desktops only the short one.
    return {QStringLiteral("org.freedesktop.ScreenSaver"),
            {QStringLiteral("/org/freedesktop/ScreenSaver"), QStringLiteral("/ScreenSaver")},
            QStringLiteral("org.freedesktop.ScreenSaver"), QStringLiteral("GetSessionIdleTime"), 1.0};
}

DbusIdleSource::DbusIdleSource(QDBusConnection bus, DbusIdleMethod method)
    : DbusIdleSource(std::move(bus), std::move(method), Timing{})
{
}

DbusIdleSource::DbusIdleSource(QDBusConnection bus, DbusIdleMethod method, Timing timing)
    : m_bus(std::move(bus)), m_method(std::move(method)), m_timing(timing)
{
}

std::optional<double> DbusIdleSource::idleSeconds() const
{
    const auto now = std::chrono::steady_clock::now();
    if (m_leftAloneUntil && now < *m_leftAloneUntil)
        return std::nullopt;
    m_leftAloneUntil.reset();
    bool serviceAnswered = false;
    std::optional<double> seconds = m_answeringPath ? ask(*m_answeringPath, serviceAnswered) : probe();
    if (!seconds) {
        // Gone (the shell restarted), refusing (GNOME's ScreenSaver says NotSupported) or hung:
        // asking again at every poll would cost up to a timeout each time.
        m_answeringPath.reset();
        m_leftAloneUntil = std::chrono::steady_clock::now() + m_timing.reprobe;
    }
    return seconds;
}

std::optional<double> DbusIdleSource::probe() const
{
    for (const QString &path : m_method.paths) {
        bool serviceAnswered = false;
        if (const std::optional<double> seconds = ask(path, serviceAnswered)) {
            m_answeringPath = path;
            return seconds;
        }
        if (!serviceAnswered) // absent or hung: another path of it would cost the same for nothing
            break;
    }
    return std::nullopt;
}

std::optional<double> DbusIdleSource::ask(const QString &path, bool &serviceAnswered) const
{
    if (!m_bus.isConnected())
        return std::nullopt;
    QDBusMessage call = QDBusMessage::createMethodCall(m_method.service, path, m_method.interface, m_method.method);
    // Asking for the idle time must not start a screensaver or a shell that is not running.
    call.setAutoStartService(false);
    // Block (not BlockWithGui): no event loop runs inside the call, so no timer or slot of the
    // GUI thread re-enters while it waits.
    const QDBusMessage reply = m_bus.call(call, QDBus::Block, int(m_timing.callTimeout.count()));
    const QString error = reply.errorName();
    serviceAnswered = reply.type() == QDBusMessage::ReplyMessage ||
                      (error != QLatin1StringView("org.freedesktop.DBus.Error.ServiceUnknown") &&
                       error != QLatin1StringView("org.freedesktop.DBus.Error.NameHasNoOwner") &&
                       error != QLatin1StringView("org.freedesktop.DBus.Error.NoReply") &&
                       error != QLatin1StringView("org.freedesktop.DBus.Error.Timeout") &&
                       error != QLatin1StringView("org.freedesktop.DBus.Error.Disconnected"));
    if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().size() != 1)
        return std::nullopt;
    // Mutter answers a uint64, the ScreenSaver interface a uint32; anything else is not an idle time.
    const QVariant &value = reply.arguments().constFirst();
    const int type = value.metaType().id();
    if (type != QMetaType::ULongLong && type != QMetaType::UInt)
        return std::nullopt;
    return double(value.toULongLong()) * m_method.secondsPerUnit;
}

} // namespace swarmtrain

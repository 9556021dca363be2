// DbusIdleSource against fake GNOME and freedesktop services on a private dbus-daemon (never
// the machine's own bus), and the throttle following the fake GNOME idle monitor.
#include "DbusIdleSource.h"

#include "SignalWait.h"
#include "TempDir.h"
#include "TestApplication.h"
#include "ThrottleMonitor.h"

#include <QDBusConnection>
#include <QDBusContext>
#include <QDBusMessage>
#include <QProcess>
#include <QStandardPaths>
#include <QThread>

#include <gtest/gtest.h>

#include <atomic>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

// How a fake service answers: with its idle time, with GNOME's NotSupported error, or never.
enum class Answer { IdleTime, Refuse, Hang };

// What both fakes share. Their slots run on the service's own thread (FakeService), so the test
// thread can make blocking calls to them.
class FakeIdleService : public QObject, protected QDBusContext {
    Q_OBJECT

public:
    std::atomic<qulonglong> idle{0};
    std::atomic<Answer> answer{Answer::IdleTime};
    std::atomic<int> calls{0};

public Q_SLOTS:
    // Asked through the same connection after other calls, it answers after them (D-Bus keeps
    // each connection's order), so the count includes them all.
    int CallsSoFar() { return calls; }

protected:
    qulonglong reply()
    {
        ++calls;
        if (answer == Answer::Refuse)
            sendErrorReply(QStringLiteral("org.freedesktop.DBus.Error.NotSupported"), QStringLiteral("not supported"));
        else if (answer == Answer::Hang)
            setDelayedReply(true); // and never reply: the caller must give up on its own
        return idle;
    }
};

class FakeMutterIdleMonitor : public FakeIdleService {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.gnome.Mutter.IdleMonitor")

public Q_SLOTS:
    qulonglong GetIdletime() { return reply(); } // milliseconds
};

class FakeScreenSaver : public FakeIdleService {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.ScreenSaver")

public Q_SLOTS:
    uint GetSessionIdleTime() { return uint(reply()); } // seconds
};

// A dbus-daemon of the test's own, with a config that starts no services.
class PrivateBus {
public:
    PrivateBus()
    {
        const QString daemon = QStandardPaths::findExecutable(QStringLiteral("dbus-daemon"));
        if (daemon.isEmpty())
            return;
        const std::string config = "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\" "
                                   "\"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                                   "<busconfig><type>session</type><listen>unix:dir=" +
                                   m_dir.path().string() +
                                   "</listen><policy context=\"default\"><allow send_destination=\"*\"/>"
                                   "<allow receive_sender=\"*\"/><allow own=\"*\"/></policy></busconfig>\n";
        const auto file = m_dir.write("bus.conf", config);
        m_daemon.start(daemon, {QStringLiteral("--config-file=") + QString::fromStdString(file.string()),
                                QStringLiteral("--nofork"), QStringLiteral("--print-address=1")});
        while (!m_daemon.canReadLine() && m_daemon.waitForReadyRead(test::kSignalWaitMs)) {
        }
        m_address = QString::fromUtf8(m_daemon.readLine()).trimmed();
    }
    ~PrivateBus()
    {
        m_daemon.terminate();
        m_daemon.waitForFinished();
    }

    const QString &address() const { return m_address; } // empty: dbus-daemon is missing or failed

private:
    test::TempDir m_dir;
    QProcess m_daemon;
    QString m_address;
};

// A fake service on its own thread and its own connection to the bus.
class FakeService {
public:
    FakeService(const QString &address, const QString &name, const QStringList &paths,
                std::unique_ptr<FakeIdleService> object)
        : m_object(std::move(object)),
          m_connectionName(QStringLiteral("swarmtrain-fake-") + QString::number(++s_connections)),
          m_connection(QDBusConnection::connectToBus(address, m_connectionName))
    {
        m_thread.start();
        m_object->moveToThread(&m_thread);
        for (const QString &path : paths)
            m_registered = m_connection.registerObject(path, m_object.get(), QDBusConnection::ExportAllSlots);
        m_registered = m_registered && m_connection.registerService(name);
    }
    ~FakeService()
    {
        QDBusConnection::disconnectFromBus(m_connectionName);
        m_thread.quit();
        m_thread.wait();
    }

    bool registered() const { return m_registered; }
    FakeIdleService &object() { return *m_object; }

private:
    static inline int s_connections = 0;
    QThread m_thread;
    std::unique_ptr<FakeIdleService> m_object;
    QString m_connectionName;
    QDBusConnection m_connection;
    bool m_registered = false;
};

class DbusIdleSourceTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        if (m_bus.address().isEmpty())
            GTEST_SKIP() << "needs dbus-daemon (Debian package dbus; installer/install-deps.sh installs it)";
        // Anything that asked for the session bus by mistake would get the private one.
        m_savedAddress = qgetenv("DBUS_SESSION_BUS_ADDRESS");
        qputenv("DBUS_SESSION_BUS_ADDRESS", m_bus.address().toUtf8());
        m_clientName = QStringLiteral("swarmtrain-client-") + QString::number(++s_clients);
        m_client = QDBusConnection::connectToBus(m_bus.address(), m_clientName);
        ASSERT_TRUE(m_client.isConnected()) << m_client.lastError().message().toStdString();
    }
    void TearDown() override
    {
        if (m_bus.address().isEmpty())
            return;
        QDBusConnection::disconnectFromBus(m_clientName);
        qputenv("DBUS_SESSION_BUS_ADDRESS", m_savedAddress);
    }

    std::unique_ptr<FakeService> startMutter()
    {
        // Names spelled out here, not taken from DbusIdleMethod, so a typo there fails the tests.
        auto service = std::make_unique<FakeService>(m_bus.address(), QStringLiteral("org.gnome.Mutter.IdleMonitor"),
                                                     QStringList{QStringLiteral("/org/gnome/Mutter/IdleMonitor/Core")},
                                                     std::make_unique<FakeMutterIdleMonitor>());
        EXPECT_TRUE(service->registered());
        return service;
    }

    std::unique_ptr<FakeService> startScreenSaver(const QStringList &paths)
    {
        auto service = std::make_unique<FakeService>(m_bus.address(), QStringLiteral("org.freedesktop.ScreenSaver"),
                                                     paths, std::make_unique<FakeScreenSaver>());
        EXPECT_TRUE(service->registered());
        return service;
    }

    // How often the fake was asked for the idle time, counting every call the client sent before.
    int callsSeen(const DbusIdleMethod &fake)
    {
        const QDBusMessage reply = m_client.call(
            QDBusMessage::createMethodCall(fake.service, fake.paths.constFirst(), fake.interface,
                                           QStringLiteral("CallsSoFar")),
            QDBus::Block, test::kSignalWaitMs);
        return reply.arguments().value(0, -1).toInt();
    }

    DbusIdleSource mutterSource(DbusIdleSource::Timing timing = {})
    {
        return DbusIdleSource(m_client, DbusIdleMethod::gnomeMutter(), timing);
    }
    DbusIdleSource screenSaverSource(DbusIdleSource::Timing timing = {})
    {
        return DbusIdleSource(m_client, DbusIdleMethod::freedesktopScreenSaver(), timing);
    }

    static inline int s_clients = 0;
    PrivateBus m_bus;
    QByteArray m_savedAddress;
    QString m_clientName;
    QDBusConnection m_client{QString()};
};

} // namespace

TEST_F(DbusIdleSourceTest, MutterAnswersMillisecondsAsSeconds)
{
    const auto mutter = startMutter();
    mutter->object().idle = 1500;
    EXPECT_EQ(mutterSource().idleSeconds(), 1.5);
}

TEST_F(DbusIdleSourceTest, ScreenSaverAnswersOnItsLongPath)
{
    const auto screenSaver = startScreenSaver({QStringLiteral("/org/freedesktop/ScreenSaver")});
    screenSaver->object().idle = 42;
    EXPECT_EQ(screenSaverSource().idleSeconds(), 42.0);
}

TEST_F(DbusIdleSourceTest, ScreenSaverAnswersOnItsShortPath)
{
    const auto screenSaver = startScreenSaver({QStringLiteral("/ScreenSaver")});
    screenSaver->object().idle = 17;
    EXPECT_EQ(screenSaverSource().idleSeconds(), 17.0);
}

TEST_F(DbusIdleSourceTest, UnknownWhenTheServiceIsNotOnTheBus)
{
    const auto screenSaver = startScreenSaver({QStringLiteral("/ScreenSaver")});
    EXPECT_EQ(mutterSource().idleSeconds(), std::nullopt) << "only the ScreenSaver is there";
    EXPECT_EQ(screenSaverSource().idleSeconds(), 0.0);
}

TEST_F(DbusIdleSourceTest, UnknownWhenNeitherServiceIsOnTheBus)
{
    EXPECT_EQ(mutterSource().idleSeconds(), std::nullopt);
    EXPECT_EQ(screenSaverSource().idleSeconds(), std::nullopt);
}

TEST_F(DbusIdleSourceTest, RefusingServiceIsLeftAloneUntilTheReprobe)
{
    // GNOME Shell owns org.freedesktop.ScreenSaver but answers GetSessionIdleTime with an error.
    const auto screenSaver = startScreenSaver({QStringLiteral("/org/freedesktop/ScreenSaver")});
    screenSaver->object().answer = Answer::Refuse;
    const DbusIdleSource source = screenSaverSource({200ms, 1h});
    EXPECT_EQ(source.idleSeconds(), std::nullopt);
    const int asked = screenSaver->object().calls;
    EXPECT_GE(asked, 1);
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(source.idleSeconds(), std::nullopt);
    EXPECT_EQ(screenSaver->object().calls, asked) << "not asked again within the reprobe interval";
}

TEST_F(DbusIdleSourceTest, ServiceThatAppearsLaterIsFoundAtTheReprobe)
{
    const DbusIdleSource source = mutterSource({200ms, 0ms});
    EXPECT_EQ(source.idleSeconds(), std::nullopt);
    const auto mutter = startMutter();
    mutter->object().idle = 4000;
    EXPECT_EQ(source.idleSeconds(), 4.0);
}

TEST_F(DbusIdleSourceTest, HungServiceCostsOneTimeoutThenIsLeftAlone)
{
    const auto mutter = startMutter();
    mutter->object().answer = Answer::Hang;
    const DbusIdleSource source = mutterSource({200ms, 1h});
    EXPECT_EQ(source.idleSeconds(), std::nullopt) << "the call gives up at its timeout";
    EXPECT_EQ(source.idleSeconds(), std::nullopt);
    EXPECT_EQ(callsSeen(DbusIdleMethod::gnomeMutter()), 1) << "a hung service is not asked at every poll";
}

TEST_F(DbusIdleSourceTest, MalformedAnswerIsUnknown)
{
    // Introspect answers a string: not an idle time.
    const auto mutter = startMutter();
    DbusIdleMethod method = DbusIdleMethod::gnomeMutter();
    method.method = QStringLiteral("Introspect");
    method.interface = QStringLiteral("org.freedesktop.DBus.Introspectable");
    EXPECT_EQ(DbusIdleSource(m_client, method).idleSeconds(), std::nullopt);
}

TEST_F(DbusIdleSourceTest, ThrottleFollowsMutterFromActiveToTenMinutesIdleAndBack)
{
    const auto mutter = startMutter();
    mutter->object().idle = 0;
    ThrottleSources sources;
    sources.idle = std::make_unique<DbusIdleSource>(m_client, DbusIdleMethod::gnomeMutter());
    ThrottlePrefs prefs; // computes after 3 idle minutes
    ThrottleMonitor monitor(std::move(sources), prefs, ThrottleMonitor::Intervals{20ms, 50ms});
    QSignalSpy changed(&monitor, &ThrottleMonitor::decisionChanged);
    monitor.start();
    EXPECT_EQ(monitor.lastSignals().idleSeconds, 0.0);
    EXPECT_EQ(monitor.decision().action, ThrottleAction::Pause);
    EXPECT_EQ(monitor.decision().reason, PauseReason::UserActive);

    mutter->object().idle = 600'000; // ten minutes
    ASSERT_TRUE(test::waitFor(changed, 2));
    EXPECT_TRUE(monitor.decision().running());
    EXPECT_EQ(monitor.lastSignals().idleSeconds, 600.0);

    mutter->object().idle = 0;
    ASSERT_TRUE(test::waitFor(changed, 3));
    EXPECT_EQ(monitor.decision().action, ThrottleAction::Pause);
    EXPECT_EQ(monitor.decision().reason, PauseReason::UserActive);
    EXPECT_EQ(monitor.lastSignals().idleSeconds, 0.0);
}

#include "DbusIdleSourceTest.moc"

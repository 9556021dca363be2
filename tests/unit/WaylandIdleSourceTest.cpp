// WaylandIdleSource against a small compositor of the test's own (libwayland-server) that
// offers ext-idle-notify-v1, and against Debian 12's weston, which does not offer it. No
// compositor in Debian 12 offers the protocol: its wlroots is 0.15 (the protocol came in 0.16),
// so sway 1.7, cage, wayfire and phoc lack it, and weston 10 never had it.
#include "WaylandIdleSource.h"

#include "SignalWait.h"
#include "TempDir.h"
#include "TestApplication.h"

#include "ext-idle-notify-v1-server-protocol.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include <wayland-client.h>
#include <wayland-server.h>

#include <gtest/gtest.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace swarmtrain;

namespace {

// A compositor with a seat and, if asked, ext_idle_notifier_v1, running on a thread of its own.
// The test tells it when the seat goes idle or sees input again.
class FakeCompositor {
public:
    explicit FakeCompositor(bool offerIdleNotify)
    {
        m_display = wl_display_create();
        m_socket = wl_display_add_socket_auto(m_display);
        wl_global_create(m_display, &wl_seat_interface, 1, this, &bindSeat);
        if (offerIdleNotify)
            wl_global_create(m_display, &ext_idle_notifier_v1_interface, 1, this, &bindNotifier);
        m_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        wl_event_loop_add_fd(wl_display_get_event_loop(m_display), m_wake, WL_EVENT_READABLE, &runPosted, this);
        m_thread = std::thread([this] { wl_display_run(m_display); });
    }
    ~FakeCompositor()
    {
        post([this] { wl_display_terminate(m_display); });
        m_thread.join();
        wl_display_destroy_clients(m_display);
        wl_display_destroy(m_display);
        close(m_wake);
    }
    FakeCompositor(const FakeCompositor &) = delete;
    FakeCompositor &operator=(const FakeCompositor &) = delete;

    std::string socket() const { return m_socket ? m_socket : ""; }
    int notifications() const { return m_created; }
    unsigned lastTimeoutMs() const { return m_lastTimeout; }

    void idle()
    {
        post([this] {
            for (wl_resource *notification : m_notifications)
                ext_idle_notification_v1_send_idled(notification);
        });
    }
    void input()
    {
        post([this] {
            for (wl_resource *notification : m_notifications)
                ext_idle_notification_v1_send_resumed(notification);
        });
    }

private:
    // libwayland-server is single-threaded: the test's requests run on the compositor's thread.
    void post(std::function<void()> work)
    {
        {
            std::lock_guard lock(m_mutex);
            m_posted.push_back(std::move(work));
        }
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t written = write(m_wake, &one, sizeof one);
    }
    static int runPosted(int fd, uint32_t, void *data)
    {
        auto &self = *static_cast<FakeCompositor *>(data);
        uint64_t count = 0;
        [[maybe_unused]] const ssize_t read = ::read(fd, &count, sizeof count);
        std::vector<std::function<void()>> posted;
        {
            std::lock_guard lock(self.m_mutex);
            posted.swap(self.m_posted);
        }
        for (auto &work : posted)
            work();
        wl_display_flush_clients(self.m_display);
        return 0;
    }

    static void ignore(wl_client *, wl_resource *, uint32_t) {}
    static void destroyRequest(wl_client *, wl_resource *resource) { wl_resource_destroy(resource); }

    static void bindSeat(wl_client *client, void *, uint32_t version, uint32_t id)
    {
        static const struct wl_seat_interface seat{&ignore, &ignore, &ignore, &destroyRequest};
        wl_resource *resource = wl_resource_create(client, &wl_seat_interface, int(version), id);
        wl_resource_set_implementation(resource, &seat, nullptr, nullptr);
    }

    static void getNotification(wl_client *client, wl_resource *notifier, uint32_t id, uint32_t timeout, wl_resource *)
    {
        static const struct ext_idle_notification_v1_interface notification{&destroyRequest};
        auto &self = *static_cast<FakeCompositor *>(wl_resource_get_user_data(notifier));
        wl_resource *resource = wl_resource_create(client, &ext_idle_notification_v1_interface, 1, id);
        wl_resource_set_implementation(resource, &notification, &self, [](wl_resource *gone) {
            auto &owner = *static_cast<FakeCompositor *>(wl_resource_get_user_data(gone));
            std::erase(owner.m_notifications, gone);
        });
        self.m_notifications.push_back(resource);
        self.m_lastTimeout = timeout;
        ++self.m_created;
    }

    static void bindNotifier(wl_client *client, void *data, uint32_t version, uint32_t id)
    {
        static const struct ext_idle_notifier_v1_interface notifier{&destroyRequest, &getNotification};
        wl_resource *resource = wl_resource_create(client, &ext_idle_notifier_v1_interface, int(version), id);
        wl_resource_set_implementation(resource, &notifier, data, nullptr);
    }

    wl_display *m_display = nullptr;
    const char *m_socket = nullptr;
    int m_wake = -1;
    std::thread m_thread;
    std::mutex m_mutex;
    std::vector<std::function<void()>> m_posted;
    std::vector<wl_resource *> m_notifications; // the compositor's thread only
    std::atomic<int> m_created{0};
    std::atomic<unsigned> m_lastTimeout{0};
};

// The interfaces a compositor announces, or none when nothing answers on `socket`.
std::set<std::string> globalsOf(const std::string &socket)
{
    std::set<std::string> names;
    wl_display *display = wl_display_connect(socket.c_str());
    if (!display)
        return names;
    wl_registry *registry = wl_display_get_registry(display);
    static const wl_registry_listener listener{
        [](void *data, wl_registry *, uint32_t, const char *interface, uint32_t) {
            static_cast<std::set<std::string> *>(data)->insert(interface);
        },
        [](void *, wl_registry *, uint32_t) {}};
    wl_registry_add_listener(registry, &listener, &names);
    wl_display_roundtrip(display);
    wl_registry_destroy(registry);
    wl_display_disconnect(display);
    return names;
}

class WaylandIdleSourceTest : public ::testing::Test {
protected:
    // Sockets go to a folder of the test's own, never the session's.
    void SetUp() override
    {
        test::application();
        m_savedRuntimeDir = qgetenv("XDG_RUNTIME_DIR");
        qputenv("XDG_RUNTIME_DIR", QByteArray::fromStdString(m_runtimeDir.path().string()));
    }
    void TearDown() override { qputenv("XDG_RUNTIME_DIR", m_savedRuntimeDir); }

    // Polls `condition` until it holds or a generous deadline passes.
    template <typename F>
    static bool eventually(F condition)
    {
        return QTest::qWaitFor(condition, test::kSignalWaitMs);
    }

    test::TempDir m_runtimeDir;
    QByteArray m_savedRuntimeDir;
};

} // namespace

TEST_F(WaylandIdleSourceTest, FollowsTheCompositorsIdledAndResumedEvents)
{
    FakeCompositor compositor(true);
    ASSERT_FALSE(compositor.socket().empty());
    const WaylandIdleSource source(compositor.socket());
    ASSERT_TRUE(source.available());
    EXPECT_EQ(compositor.notifications(), 1);
    EXPECT_EQ(compositor.lastTimeoutMs(), unsigned(WaylandIdleSource::kNotifyAfter.count()));
    EXPECT_EQ(source.idleSeconds(), 0.0) << "in use until the compositor says idle";

    compositor.idle();
    ASSERT_TRUE(eventually([&] { return source.idleSeconds().value_or(0.0) > 0.0; }));
    const double idle = *source.idleSeconds();
    EXPECT_GE(idle, 1.0) << "idle for at least the notification's timeout";
    EXPECT_GE(*source.idleSeconds(), idle) << "and counting up from there";

    compositor.input();
    ASSERT_TRUE(eventually([&] { return source.idleSeconds() == 0.0; }));
    EXPECT_TRUE(source.available());
}

TEST_F(WaylandIdleSourceTest, UnavailableWhereTheCompositorLacksTheProtocol)
{
    FakeCompositor compositor(false);
    ASSERT_TRUE(globalsOf(compositor.socket()).contains("wl_seat")) << "a working compositor";
    const WaylandIdleSource source(compositor.socket());
    EXPECT_FALSE(source.available());
    EXPECT_EQ(source.idleSeconds(), std::nullopt);
    EXPECT_EQ(compositor.notifications(), 0);
}

TEST_F(WaylandIdleSourceTest, UnknownWithoutACompositor)
{
    const WaylandIdleSource source("swarmtrain-test-no-such-compositor");
    EXPECT_FALSE(source.available());
    EXPECT_EQ(source.idleSeconds(), std::nullopt);
}

TEST_F(WaylandIdleSourceTest, UnknownOnceTheCompositorIsGone)
{
    auto compositor = std::make_unique<FakeCompositor>(true);
    const WaylandIdleSource source(compositor->socket());
    ASSERT_TRUE(source.available());
    compositor.reset();
    EXPECT_TRUE(eventually([&] { return !source.idleSeconds().has_value(); }));
    EXPECT_FALSE(source.available());
}

// Debian 12's weston, headless: a real compositor, without ext-idle-notify-v1.
TEST_F(WaylandIdleSourceTest, UnavailableOnDebianWestonHeadless)
{
    const QString weston = QStandardPaths::findExecutable(QStringLiteral("weston"));
    if (weston.isEmpty())
        GTEST_SKIP() << "needs weston (Debian package weston; installer/install-deps.sh installs it)";
    const std::string socket = "swarmtrain-test-weston";
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(weston, {QStringLiteral("--backend=headless-backend.so"), QStringLiteral("--shell=kiosk-shell.so"),
                           QStringLiteral("--no-config"), QStringLiteral("--idle-time=0"),
                           QStringLiteral("--socket=") + QString::fromStdString(socket)});
    ASSERT_TRUE(process.waitForStarted(test::kSignalWaitMs));
    const bool up = eventually([&] {
        return process.state() == QProcess::Running && globalsOf(socket).contains("wl_compositor");
    });
    if (!up) {
        const QByteArray log = process.readAll();
        process.kill();
        process.waitForFinished();
        FAIL() << "weston did not start headless:\n" << log.toStdString();
    }
    EXPECT_FALSE(globalsOf(socket).contains("ext_idle_notifier_v1"));
    const WaylandIdleSource source(socket);
    EXPECT_FALSE(source.available());
    EXPECT_EQ(source.idleSeconds(), std::nullopt);
    process.terminate();
    if (!process.waitForFinished(test::kSignalWaitMs))
        process.kill();
    process.waitForFinished();
}

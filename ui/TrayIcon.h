#pragma once

#include <QSystemTrayIcon>

#include <memory>

class QAction;
class QMenu;

namespace swarmtrain {

class ClientSession;
struct SessionState;

// The notification-area icon: green while contributing, amber while paused, red on an error;
// the tooltip says the state and why ("SwarmTrain — Paused: on battery"). Its menu pauses
// (until resumed, or for an hour), resumes, opens the dashboard and quits. Opening and quitting
// are the application's business, so they are signals.
class TrayIcon : public QSystemTrayIcon {
    Q_OBJECT

public:
    explicit TrayIcon(ClientSession &session, QObject *parent = nullptr);
    ~TrayIcon() override;

    QMenu *menu() const { return m_menu.get(); }
    QAction *pauseAction() const { return m_pause; }
    QAction *pauseHourAction() const { return m_pauseHour; }
    QAction *resumeAction() const { return m_resume; }
    QAction *openAction() const { return m_open; }
    QAction *quitAction() const { return m_quit; }

Q_SIGNALS:
    void openDashboardRequested();
    void quitRequested();

protected:
    // The menu is a top-level widget, so it hears of a language switch; the icon follows it.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void retranslate();
    void showState(const SessionState &state);

    ClientSession &m_session;
    std::unique_ptr<QMenu> m_menu; // a widget cannot have the tray (a QObject) as its parent
    QAction *m_pause = nullptr;
    QAction *m_pauseHour = nullptr;
    QAction *m_resume = nullptr;
    QAction *m_open = nullptr;
    QAction *m_quit = nullptr;
};

} // namespace swarmtrain

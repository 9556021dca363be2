#pragma once

#include <QMainWindow>
#include <QPointer>

#include <optional>

class QLabel;
class QListWidget;
class QStackedWidget;

namespace swarmtrain {

class ClientSession;
class LogCapture;
class TrayIcon;
struct SessionState;

// The window: a list of pages on the left (Dashboard, Device, Swarm, Settings, Log), the page on
// the right, the state with its reason in the status bar. Closing it while a tray icon is shown
// only hides it (and says so, once); without a tray, closing quits as in any window app.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    enum class Page { Dashboard, Device, Swarm, Model, Settings, Log };

    MainWindow(ClientSession &session, LogCapture &log, QWidget *parent = nullptr);
    ~MainWindow() override;

    void showPage(Page page);
    QWidget *page(Page page) const;
    Page currentPage() const;

    // The tray icon the notice "keeps running in the tray" appears at (else a message box).
    void setTray(TrayIcon *tray);
    // Whether closing hides (a tray is there) or quits. By default: the desktop has a system
    // tray (and the icon given to setTray() is visible). Tests force either.
    void setTrayAvailable(std::optional<bool> available) { m_trayAvailable = available; }
    bool trayAvailable() const;

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void showState(const SessionState &state);
    void showTrayNotice();

    ClientSession &m_session;
    QListWidget *m_pageList = nullptr;
    QStackedWidget *m_pages = nullptr;
    QLabel *m_brand = nullptr;
    QLabel *m_status = nullptr;
    QPointer<TrayIcon> m_tray;
    std::optional<bool> m_trayAvailable;
    bool m_quitting = false;
};

} // namespace swarmtrain

#include "TrayIcon.h"

#include "ClientSession.h"
#include "Icons.h"

#include <QAction>
#include <QEvent>
#include <QMenu>

using namespace std::chrono_literals;

namespace swarmtrain {

TrayIcon::TrayIcon(ClientSession &session, QObject *parent)
    : QSystemTrayIcon(parent), m_session(session), m_menu(std::make_unique<QMenu>())
{
    m_menu->setObjectName(QStringLiteral("trayMenu"));
    m_open = m_menu->addAction(QString());
    m_open->setObjectName(QStringLiteral("openAction"));
    m_menu->addSeparator();
    m_pause = m_menu->addAction(QString());
    m_pause->setObjectName(QStringLiteral("pauseAction"));
    m_pauseHour = m_menu->addAction(QString());
    m_pauseHour->setObjectName(QStringLiteral("pauseHourAction"));
    m_resume = m_menu->addAction(QString());
    m_resume->setObjectName(QStringLiteral("resumeAction"));
    m_menu->addSeparator();
    m_quit = m_menu->addAction(QString());
    m_quit->setObjectName(QStringLiteral("quitAction"));
    QFont bold = m_open->font();
    bold.setBold(true); // the default action, as a double click does
    m_open->setFont(bold);
    setContextMenu(m_menu.get());
    m_menu->installEventFilter(this);

    connect(m_pause, &QAction::triggered, this, [this] { m_session.pause(); });
    connect(m_pauseHour, &QAction::triggered, this, [this] { m_session.pause(1h); });
    connect(m_resume, &QAction::triggered, this, [this] { m_session.resume(); });
    connect(m_open, &QAction::triggered, this, &TrayIcon::openDashboardRequested);
    connect(m_quit, &QAction::triggered, this, &TrayIcon::quitRequested);
    connect(this, &QSystemTrayIcon::activated, this, [this](ActivationReason reason) {
        if (reason == Trigger || reason == DoubleClick)
            Q_EMIT openDashboardRequested();
    });
    connect(&m_session, &ClientSession::stateChanged, this, &TrayIcon::showState);

    retranslate();
    showState(m_session.state());
}

TrayIcon::~TrayIcon()
{
    setContextMenu(nullptr);
}

bool TrayIcon::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_menu.get() && event->type() == QEvent::LanguageChange)
        retranslate();
    return QSystemTrayIcon::eventFilter(watched, event);
}

void TrayIcon::retranslate()
{
    m_open->setText(tr("Open dashboard"));
    m_pause->setText(tr("Pause"));
    m_pauseHour->setText(tr("Pause for 1 hour"));
    m_resume->setText(tr("Resume"));
    m_quit->setText(tr("Quit SwarmTrain"));
    showState(m_session.state());
}

void TrayIcon::showState(const SessionState &state)
{
    setIcon(stateIcon(state.icon));
    setToolTip(tr("SwarmTrain — %1").arg(state.headline));
    // Resume undoes the person's own pause; other pauses (battery, a game) end by themselves.
    const bool manual = m_session.throttle().manuallyPaused();
    m_pause->setEnabled(!manual);
    m_pauseHour->setEnabled(!manual);
    m_resume->setEnabled(manual);
}

} // namespace swarmtrain

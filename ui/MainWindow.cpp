#include "MainWindow.h"

#include "ClientSession.h"
#include "DashboardPage.h"
#include "DevicePage.h"
#include "Icons.h"
#include "LogPage.h"
#include "ModelPage.h"
#include "SettingsPage.h"
#include "SwarmPage.h"
#include "TrayIcon.h"

#include <QCloseEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>

namespace swarmtrain {

namespace {

QColor stateColor(const SessionState &state)
{
    if (!state.joined)
        return QColor(0x86, 0x8e, 0x96);
    switch (state.icon) {
    case SessionIcon::Active:
        return QColor(0x2b, 0x9a, 0x66);
    case SessionIcon::Error:
        return QColor(0xe0, 0x31, 0x31);
    case SessionIcon::Paused:
        break;
    }
    return QColor(0xe8, 0x89, 0x0c);
}

} // namespace

MainWindow::MainWindow(ClientSession &session, LogCapture &log, QWidget *parent)
    : QMainWindow(parent), m_session(session)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(applicationIcon());
    resize(1000, 700);

    // The side bar: the product's name over the list of pages.
    auto *sidebar = new QWidget;
    sidebar->setObjectName(QStringLiteral("sidebar"));
    sidebar->setFixedWidth(200);
    sidebar->setAutoFillBackground(true);
    sidebar->setBackgroundRole(QPalette::Base);
    auto *sideLayout = new QVBoxLayout(sidebar);
    sideLayout->setContentsMargins(12, 16, 12, 12);
    sideLayout->setSpacing(14);
    auto *brandRow = new QHBoxLayout;
    brandRow->setSpacing(10);
    auto *logo = new QLabel(sidebar);
    logo->setPixmap(applicationIcon().pixmap(32, 32));
    m_brand = new QLabel(QStringLiteral("SwarmTrain"), sidebar); // a name: not translated
    QFont brandFont = m_brand->font();
    brandFont.setPointSizeF(brandFont.pointSizeF() * 1.35);
    brandFont.setWeight(QFont::DemiBold);
    m_brand->setFont(brandFont);
    brandRow->addWidget(logo);
    brandRow->addWidget(m_brand, 1);
    sideLayout->addLayout(brandRow);

    m_pageList = new QListWidget(sidebar);
    m_pageList->setObjectName(QStringLiteral("pageList"));
    m_pageList->setFrameShape(QFrame::NoFrame);
    m_pageList->setSpacing(1);
    m_pageList->setStyleSheet(QStringLiteral(
        "QListWidget { background: transparent; border: none; outline: 0; }"
        "QListWidget::item { padding: 8px 10px; border-radius: 6px; color: palette(text); }"
        "QListWidget::item:hover { background: palette(alternate-base); }"
        "QListWidget::item:selected { background: palette(highlight); color: palette(highlighted-text); }"));
    QFont pageFont = m_pageList->font();
    pageFont.setPointSizeF(pageFont.pointSizeF() * 1.1);
    m_pageList->setFont(pageFont);
    for (int i = 0; i < 6; ++i)
        new QListWidgetItem(m_pageList);
    sideLayout->addWidget(m_pageList, 1);

    m_pages = new QStackedWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->addWidget(new DashboardPage(session, m_pages));
    m_pages->addWidget(new DevicePage(session, m_pages));
    m_pages->addWidget(new SwarmPage(session, m_pages));
    m_pages->addWidget(new ModelPage(session, m_pages));
    m_pages->addWidget(new SettingsPage(session, m_pages));
    m_pages->addWidget(new LogPage(log, m_pages));

    auto *divider = new QFrame;
    divider->setFrameShape(QFrame::VLine);
    divider->setFrameShadow(QFrame::Plain);
    divider->setForegroundRole(QPalette::Midlight);

    auto *central = new QWidget;
    auto *layout = new QHBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(sidebar);
    layout->addWidget(divider);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);

    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setTextFormat(Qt::RichText);
    // A long reason must not widen the window: the label gives way and elides at its edge.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    statusBar()->addWidget(m_status, 1);

    connect(m_pageList, &QListWidget::currentRowChanged, m_pages, &QStackedWidget::setCurrentIndex);
    connect(&m_session, &ClientSession::stateChanged, this, &MainWindow::showState);

    retranslate();
    showPage(Page::Dashboard);
}

MainWindow::~MainWindow() = default;

void MainWindow::showPage(Page page)
{
    m_pageList->setCurrentRow(int(page));
    m_pages->setCurrentIndex(int(page));
}

QWidget *MainWindow::page(Page page) const { return m_pages->widget(int(page)); }

MainWindow::Page MainWindow::currentPage() const { return Page(m_pages->currentIndex()); }

void MainWindow::setTray(TrayIcon *tray) { m_tray = tray; }

bool MainWindow::trayAvailable() const
{
    if (m_trayAvailable)
        return *m_trayAvailable;
    if (m_tray)
        return m_tray->isVisible() && QSystemTrayIcon::isSystemTrayAvailable();
    return QSystemTrayIcon::isSystemTrayAvailable();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_quitting || !trayAvailable()) {
        // A window app: closing it quits, once the worker has left the swarm (readyToQuit).
        if (!m_quitting) {
            m_quitting = true;
            m_session.quit();
        }
        event->accept();
        return;
    }
    event->ignore();
    hide();
    Preferences preferences = m_session.preferences();
    if (!preferences.trayNoticeShown) {
        preferences.trayNoticeShown = true;
        m_session.setPreferences(preferences);
        showTrayNotice();
    }
}

void MainWindow::showTrayNotice()
{
    const QString title = tr("SwarmTrain keeps running");
    const QString text = tr("SwarmTrain goes on contributing in the background and steps aside whenever you use "
                            "the computer. Open it again, pause it or quit from its icon in the system tray.");
    if (m_tray && m_tray->isVisible() && QSystemTrayIcon::supportsMessages()) {
        m_tray->showMessage(title, text, applicationIcon(), 10000);
        return;
    }
    // Not modal: closing the window must never wait for a click.
    auto *box = new QMessageBox(QMessageBox::Information, title, text, QMessageBox::Ok);
    box->setObjectName(QStringLiteral("trayNotice"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowIcon(applicationIcon());
    box->setModal(false);
    box->show();
}

void MainWindow::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QMainWindow::changeEvent(event);
}

void MainWindow::retranslate()
{
    setWindowTitle(QStringLiteral("SwarmTrain")); // the product's name
    const QString names[] = {tr("Dashboard"), tr("Device"), tr("Swarm"), tr("Model"), tr("Settings"), tr("Log")};
    for (int i = 0; i < m_pageList->count(); ++i)
        m_pageList->item(i)->setText(names[i]);
    showState(m_session.state());
}

void MainWindow::showState(const SessionState &state)
{
    QString text = QStringLiteral("<span style=\"color:%1\">&#9679;</span>&nbsp; <b>%2</b>")
                       .arg(stateColor(state).name(), state.headline.toHtmlEscaped());
    if (!state.detail.isEmpty())
        text += QStringLiteral(" &nbsp;·&nbsp; ") + state.detail.toHtmlEscaped();
    m_status->setText(text);
}

} // namespace swarmtrain

#include "SwarmPage.h"

#include "ClientSession.h"
#include "CoordinatorConfig.h"
#include "PageStyle.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace swarmtrain {

namespace {

// "Host a swarm on this PC": model sizes a PC can train among friends (n_layer x n_embd).
struct ModelSize {
    int layers;
    int width;
    int blockSize;
};
constexpr ModelSize kModelSizes[] = {{2, 64, 64}, {4, 128, 128}, {6, 256, 128}};
constexpr int kDefaultModelSize = 1;
constexpr int kDefaultPort = 8470;
constexpr int kLeaderboardRows = 20;     // the top; this PC's row comes below when it ranks lower
constexpr qsizetype kShortPeerIdChars = 12; // enough to tell peers apart at a glance
enum LeaderboardColumn { RankColumn, NameColumn, CreditColumn, TokensColumn, LeaderboardColumns };

QFormLayout *makeForm()
{
    auto *form = new QFormLayout;
    form->setLabelAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setHorizontalSpacing(16);
    form->setVerticalSpacing(8);
    return form;
}

void setRowLabel(QFormLayout *form, QWidget *field, const QString &text)
{
    if (auto *label = qobject_cast<QLabel *>(form->labelForField(field)))
        label->setText(text);
}

QWidget *inRow(QWidget *parent, std::initializer_list<QWidget *> widgets)
{
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(8);
    bool first = true;
    for (QWidget *widget : widgets) {
        layout->addWidget(widget, first ? 1 : 0);
        first = false;
    }
    return row;
}

} // namespace

SwarmPage::SwarmPage(ClientSession &session, QWidget *parent) : QWidget(parent), m_session(session)
{
    setObjectName(QStringLiteral("swarmPage"));
    setStyleSheet(pageStyleSheet());

    QVBoxLayout *layout = makeScrollingColumn(this);
    layout->addWidget(buildCurrentCard());
    layout->addWidget(buildLeaderboardCard());
    // One column, as the other pages: side by side, the two forms needed more than a laptop's
    // window and the page scrolled sideways.
    layout->addWidget(buildJoinCard());
    layout->addWidget(buildHostCard());
    layout->addStretch(1);

    connect(&m_session, &ClientSession::stateChanged, this, &SwarmPage::showState);
    connect(&m_session, &ClientSession::swarmUpdated, this, &SwarmPage::showSwarm);
    connect(&m_session, &ClientSession::hostingChanged, this, &SwarmPage::showHosting);
    connect(m_joinEdit, &QLineEdit::textChanged, this, &SwarmPage::showPastedPin);
    connect(m_joinEdit, &QLineEdit::returnPressed, this, &SwarmPage::join);
    connect(m_joinButton, &QPushButton::clicked, this, &SwarmPage::join);
    m_allowPlainHttp->setChecked(m_session.preferences().allowPlainHttp);
    connect(m_allowPlainHttp, &QCheckBox::toggled, this, [this](bool on) {
        Preferences preferences = m_session.preferences();
        preferences.allowPlainHttp = on;
        m_session.setPreferences(preferences);
    });
    connect(m_leave, &QPushButton::clicked, this, [this] {
        m_session.leave();
        m_haveSnapshot = false;
        m_leaders.clear();
        m_joinMessage->hide();
        showCurrent();
        showLeaderboard();
    });
    connect(m_browse, &QPushButton::clicked, this, &SwarmPage::chooseData);
    connect(m_startHosting, &QPushButton::clicked, this, &SwarmPage::startHosting);
    connect(m_stopHosting, &QPushButton::clicked, this, [this] {
        m_hostStarting = false;
        m_session.stopHosting();
        showHosting(m_session.hosting(), m_session.inviteLink(), {});
    });
    connect(m_copyInvite, &QPushButton::clicked, this, [this] {
        QApplication::clipboard()->setText(m_invite->text());
        setMessage(m_hostMessage, tr("The invite link is on the clipboard."), false);
    });

    retranslate();
    showHosting(m_session.hosting(), m_session.inviteLink(), {});
}

SwarmPage::~SwarmPage() = default;

QWidget *SwarmPage::buildCurrentCard()
{
    QFrame *card = makeCard(this);
    auto *layout = new QVBoxLayout(card);
    layout->setContentsMargins(18, 14, 18, 14);
    layout->setSpacing(10);
    m_currentTitle = makeLabel("title", card);
    layout->addWidget(m_currentTitle);

    m_currentForm = makeForm();
    m_url = makeLabel("", card);
    m_url->setObjectName(QStringLiteral("swarmUrlValue"));
    m_url->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_peersValue = makeLabel("", card);
    m_peersValue->setObjectName(QStringLiteral("peersValue"));
    m_round = makeLabel("", card);
    m_round->setObjectName(QStringLiteral("swarmRoundValue"));
    m_modelValue = makeLabel("", card);
    m_modelValue->setObjectName(QStringLiteral("modelValue"));
    m_role = makeLabel("", card);
    m_role->setObjectName(QStringLiteral("roleValue"));
    m_stagesValue = makeLabel("", card);
    m_stagesValue->setObjectName(QStringLiteral("pipelineStagesValue"));
    m_pin = makeLabel("", card);
    m_pin->setObjectName(QStringLiteral("pinValue"));
    m_pin->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_pin->setWordWrap(true);
    for (QLabel *field : {m_url, m_peersValue, m_round, m_modelValue, m_role, m_stagesValue, m_pin})
        m_currentForm->addRow(new QLabel(card), field);
    layout->addLayout(m_currentForm);

    m_reach = makeLabel("", card);
    m_reach->setObjectName(QStringLiteral("reachMessage"));
    m_reach->setWordWrap(true);
    m_leave = new QPushButton(card);
    m_leave->setObjectName(QStringLiteral("leaveButton"));
    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_reach, 1);
    bottom->addWidget(m_leave, 0, Qt::AlignRight | Qt::AlignBottom);
    layout->addLayout(bottom);
    return card;
}

QWidget *SwarmPage::buildLeaderboardCard()
{
    QFrame *card = makeCard(this);
    auto *layout = new QVBoxLayout(card);
    layout->setContentsMargins(18, 14, 18, 14);
    layout->setSpacing(10);
    m_leaderboardTitle = makeLabel("title", card);
    layout->addWidget(m_leaderboardTitle);
    m_leaderboardNote = makeLabel("caption", card);
    m_leaderboardNote->setObjectName(QStringLiteral("leaderboardNote"));
    m_leaderboardNote->setWordWrap(true);
    layout->addWidget(m_leaderboardNote);

    m_leaderboard = new QTableWidget(0, LeaderboardColumns, card);
    m_leaderboard->setObjectName(QStringLiteral("leaderboardTable"));
    m_leaderboard->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_leaderboard->setSelectionMode(QAbstractItemView::NoSelection);
    m_leaderboard->setFocusPolicy(Qt::NoFocus);
    m_leaderboard->setAlternatingRowColors(true);
    m_leaderboard->setShowGrid(false);
    m_leaderboard->verticalHeader()->hide();
    QHeaderView *header = m_leaderboard->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
    m_leaderboard->setMinimumHeight(260);
    layout->addWidget(m_leaderboard);
    return card;
}

QWidget *SwarmPage::buildJoinCard()
{
    QFrame *card = makeCard(this);
    auto *layout = new QVBoxLayout(card);
    layout->setContentsMargins(18, 14, 18, 14);
    layout->setSpacing(10);
    m_joinTitle = makeLabel("title", card);
    m_joinHelp = makeLabel("caption", card);
    m_joinHelp->setWordWrap(true);
    layout->addWidget(m_joinTitle);
    layout->addWidget(m_joinHelp);

    m_joinEdit = new QLineEdit(card);
    m_joinEdit->setObjectName(QStringLiteral("joinEdit"));
    m_joinEdit->setClearButtonEnabled(true);
    m_joinButton = new QPushButton(card);
    m_joinButton->setObjectName(QStringLiteral("joinButton"));
    m_joinButton->setDefault(true);
    layout->addWidget(inRow(card, {m_joinEdit, m_joinButton}));

    m_joinForm = makeForm();
    m_pastedPin = new QLineEdit(card);
    m_pastedPin->setObjectName(QStringLiteral("pinEdit"));
    m_pastedPin->setReadOnly(true);
    m_joinForm->addRow(new QLabel(card), m_pastedPin);
    layout->addLayout(m_joinForm);

    m_allowPlainHttp = new QCheckBox(card);
    m_allowPlainHttp->setObjectName(QStringLiteral("allowPlainHttp"));
    layout->addWidget(m_allowPlainHttp);

    m_joinMessage = makeLabel("", card);
    m_joinMessage->setObjectName(QStringLiteral("joinMessage"));
    m_joinMessage->setWordWrap(true);
    m_joinMessage->hide();
    layout->addWidget(m_joinMessage);
    layout->addStretch(1);
    return card;
}

QWidget *SwarmPage::buildHostCard()
{
    QFrame *card = makeCard(this);
    auto *layout = new QVBoxLayout(card);
    layout->setContentsMargins(18, 14, 18, 14);
    layout->setSpacing(10);
    m_hostTitle = makeLabel("title", card);
    m_hostHelp = makeLabel("caption", card);
    m_hostHelp->setWordWrap(true);
    layout->addWidget(m_hostTitle);
    layout->addWidget(m_hostHelp);

    m_hostForm = makeForm();
    m_dataEdit = new QLineEdit(card);
    m_dataEdit->setObjectName(QStringLiteral("dataEdit"));
    m_browse = new QPushButton(card);
    m_browse->setObjectName(QStringLiteral("browseButton"));
    m_port = new QSpinBox(card);
    m_port->setObjectName(QStringLiteral("portSpin"));
    m_port->setRange(1024, 65535);
    m_port->setValue(kDefaultPort);
    m_port->setGroupSeparatorShown(false);
    m_modelSize = new QComboBox(card);
    m_modelSize->setObjectName(QStringLiteral("modelSizeCombo"));
    for (std::size_t i = 0; i < std::size(kModelSizes); ++i)
        m_modelSize->addItem(QString());
    m_modelSize->setCurrentIndex(kDefaultModelSize);
    QWidget *dataRow = inRow(card, {m_dataEdit, m_browse});
    m_hostForm->addRow(new QLabel(card), dataRow);
    m_hostForm->addRow(new QLabel(card), m_port);
    m_hostForm->addRow(new QLabel(card), m_modelSize);
    layout->addLayout(m_hostForm);

    m_startHosting = new QPushButton(card);
    m_startHosting->setObjectName(QStringLiteral("startHostingButton"));
    m_stopHosting = new QPushButton(card);
    m_stopHosting->setObjectName(QStringLiteral("stopHostingButton"));
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_stopHosting);
    buttons->addWidget(m_startHosting);
    layout->addLayout(buttons);

    m_hostMessage = makeLabel("", card);
    m_hostMessage->setObjectName(QStringLiteral("hostMessage"));
    m_hostMessage->setWordWrap(true);
    m_hostMessage->hide();
    layout->addWidget(m_hostMessage);

    m_inviteCaption = makeLabel("caption", card);
    m_invite = new QLineEdit(card);
    m_invite->setObjectName(QStringLiteral("inviteEdit"));
    m_invite->setReadOnly(true);
    m_copyInvite = new QPushButton(card);
    m_copyInvite->setObjectName(QStringLiteral("copyInviteButton"));
    layout->addWidget(m_inviteCaption);
    layout->addWidget(inRow(card, {m_invite, m_copyInvite}));
    layout->addStretch(1);
    return card;
}

void SwarmPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void SwarmPage::retranslate()
{
    m_currentTitle->setText(tr("Current swarm"));
    setRowLabel(m_currentForm, m_url, tr("Swarm"));
    setRowLabel(m_currentForm, m_peersValue, tr("Peers online"));
    setRowLabel(m_currentForm, m_round, tr("Round"));
    setRowLabel(m_currentForm, m_modelValue, tr("Model"));
    setRowLabel(m_currentForm, m_role, tr("This PC's role"));
    setRowLabel(m_currentForm, m_stagesValue, tr("Pipeline stages"));
    setRowLabel(m_currentForm, m_pin, tr("Certificate"));
    m_leave->setText(tr("Leave the swarm"));

    m_leaderboardTitle->setText(tr("Leaderboard"));
    m_leaderboard->setHorizontalHeaderLabels({tr("Rank"), tr("Name"), tr("Credit"), tr("Tokens")});

    m_joinTitle->setText(tr("Join a swarm"));
    m_joinHelp->setText(tr("Paste the swarm's address (https://…) or an invite link a friend sent you "
                           "(swarmtrain://join?…). An invite also pins the swarm's certificate, so no one "
                           "in between can pretend to be it."));
    m_joinEdit->setPlaceholderText(tr("https://… or swarmtrain://join?…"));
    m_joinButton->setText(tr("Join"));
    setRowLabel(m_joinForm, m_pastedPin, tr("Certificate pin"));
    m_pastedPin->setPlaceholderText(tr("None (a plain address)"));
    m_allowPlainHttp->setText(tr("Allow plain http:// to other computers (unsafe: their answers could be forged)"));

    m_hostTitle->setText(tr("Host a swarm on this PC"));
    m_hostHelp->setText(tr("Runs a coordinator on this PC, so friends on your network can train a model "
                           "together. Choose a text file as the training data; this PC joins the swarm too."));
    setRowLabel(m_hostForm, m_dataEdit->parentWidget(), tr("Training text"));
    m_dataEdit->setPlaceholderText(tr("A plain text file (.txt)"));
    m_browse->setText(tr("Browse…"));
    setRowLabel(m_hostForm, m_port, tr("Port"));
    setRowLabel(m_hostForm, m_modelSize, tr("Model size"));
    const QString sizeNames[] = {tr("Tiny"), tr("Small"), tr("Medium")};
    for (int i = 0; i < int(std::size(kModelSizes)); ++i) {
        const ModelSize &size = kModelSizes[i];
        m_modelSize->setItemText(i, tr("%1: %2 layers × %3").arg(sizeNames[i]).arg(size.layers).arg(size.width));
    }
    m_startHosting->setText(tr("Start hosting"));
    m_stopHosting->setText(tr("Stop hosting"));
    m_inviteCaption->setText(tr("Invite link for friends"));
    m_invite->setPlaceholderText(tr("Appears when the swarm is running"));
    m_copyInvite->setText(tr("Copy"));

    showCurrent();
    showLeaderboard();
    showHosting(m_session.hosting(), m_session.inviteLink(), m_hostError);
}

void SwarmPage::showState(const SessionState &) { showCurrent(); }

void SwarmPage::showSwarm(const SwarmSnapshot &snapshot)
{
    m_haveSnapshot = true;
    m_reachable = snapshot.reachable;
    m_swarmError = snapshot.error;
    if (snapshot.reachable) {
        m_swarmRound = snapshot.round;
        m_peers = snapshot.peers;
        m_model = snapshot.model;
        m_stages = snapshot.stages;
        m_bottleneck = snapshot.bottleneck;
        m_leaders = snapshot.leaderboard;
    }
    m_ownPeerId = snapshot.ownPeerId;
    showCurrent();
    showLeaderboard();
}

void SwarmPage::showLeaderboard()
{
    std::vector<qsizetype> shown; // indexes into m_leaders, rank - 1
    for (qsizetype i = 0; i < qsizetype(m_leaders.size()) && i < kLeaderboardRows; ++i)
        shown.push_back(i);
    const auto own = std::find_if(m_leaders.begin(), m_leaders.end(), [this](const StatusAnswer::Leader &leader) {
        return !m_ownPeerId.isEmpty() && leader.peerId == m_ownPeerId;
    });
    if (own != m_leaders.end() && own - m_leaders.begin() >= kLeaderboardRows)
        shown.push_back(own - m_leaders.begin());

    m_leaderboard->setRowCount(int(shown.size()));
    const QLocale locale;
    for (int row = 0; row < int(shown.size()); ++row) {
        const StatusAnswer::Leader &leader = m_leaders[std::size_t(shown[std::size_t(row)])];
        const bool thisPc = own != m_leaders.end() && &leader == &*own;
        QString name = leader.displayName.isEmpty() ? leader.peerId.left(kShortPeerIdChars) : leader.displayName;
        if (thisPc)
            name = tr("%1 (This PC)").arg(name);
        const QString cells[LeaderboardColumns] = {locale.toString(shown[std::size_t(row)] + 1), name,
                                                   locale.toString(leader.credit, 'f', 1), locale.toString(leader.tokens)};
        for (int column = 0; column < LeaderboardColumns; ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            item->setTextAlignment(Qt::AlignVCenter | (column == NameColumn ? Qt::AlignLeft : Qt::AlignRight));
            item->setToolTip(leader.peerId); // names are not unique: the key id tells peers apart
            if (thisPc) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
            m_leaderboard->setItem(row, column, item);
        }
    }
    const bool joined = m_session.joined();
    m_leaderboard->setVisible(!shown.empty());
    m_leaderboardNote->setText(!joined && shown.empty() ? tr("Join a swarm to see who contributes most.")
                               : shown.empty()          ? tr("No one is on this swarm's leaderboard yet.")
                               : own == m_leaders.end() ? tr("This PC is not on the leaderboard yet.")
                                                        : tr("This PC's row is in bold."));
}

void SwarmPage::showCurrent()
{
    const SessionState &state = m_session.state();
    const Invite swarm = m_session.swarm();
    const QString none = QStringLiteral("—");
    const bool joined = m_session.joined();
    m_url->setText(joined ? swarm.swarmUrl : tr("Not in a swarm"));
    const bool known = joined && m_haveSnapshot && (m_reachable || m_peers > 0);
    m_peersValue->setText(known ? QLocale().toString(m_peers) : none);
    const qint64 round = known ? std::max(m_swarmRound, state.work.round) : state.work.round;
    m_round->setText(joined && (known || round > 0) ? QLocale().toString(round) : none);
    m_modelValue->setText(known && !m_model.isEmpty() ? m_model : none);
    const WorkStatus &work = state.work;
    m_role->setText(!joined                     ? none
                    : work.pipelineStages == 0  ? tr("Full model replica")
                    : work.pipelineStage < 0    ? tr("Pipeline stage: not placed yet")
                                                : tr("Pipeline stage %1 of %2").arg(work.pipelineStage + 1).arg(work.pipelineStages));
    QStringList stageLines;
    for (qsizetype s = 0; known && s < m_stages.size(); ++s) {
        const SwarmSnapshot::Stage &stage = m_stages[s];
        QString line = tr("Stage %1: %n peer(s)", nullptr, stage.peers).arg(s + 1);
        if (stage.microbatchesPerSecond > 0)
            line += tr(", %1 microbatches/s").arg(QLocale().toString(stage.microbatchesPerSecond, 'f', 1));
        if (s == m_bottleneck)
            line += tr(" (the slowest)");
        stageLines.append(line);
    }
    m_stagesValue->setText(stageLines.isEmpty() ? none : stageLines.join(QLatin1Char('\n')));
    m_pin->setText(!joined ? none : swarm.pin.isEmpty() ? tr("Not pinned") : tr("Pinned: %1").arg(swarm.pin));
    m_leave->setEnabled(joined);
    if (joined && m_haveSnapshot && !m_reachable && !m_swarmError.isEmpty())
        setMessage(m_reach, tr("Cannot reach the swarm's coordinator: %1").arg(m_swarmError), true);
    else
        m_reach->clear();
}

void SwarmPage::showPastedPin()
{
    // Parsing is a pure function: it may run on every keystroke.
    const Result<Invite> invite = parseInvite(m_joinEdit->text());
    m_pastedPin->setText(invite ? invite->pin : QString());
    if (m_joinEdit->text().trimmed().isEmpty())
        m_joinMessage->hide();
}

void SwarmPage::join()
{
    const Result<void> joined = m_session.join(m_joinEdit->text());
    if (!joined) {
        setMessage(m_joinMessage, QString::fromStdString(joined.error().message), true);
        return;
    }
    setMessage(m_joinMessage, tr("Joining the swarm at %1…").arg(m_session.swarm().swarmUrl), false);
    m_haveSnapshot = false;
    m_leaders.clear();
    showCurrent();
    showLeaderboard();
}

CoordinatorConfig SwarmPage::hostedConfig() const
{
    const ModelSize &size = kModelSizes[std::clamp(m_modelSize->currentIndex(), 0, int(std::size(kModelSizes)) - 1)];
    CoordinatorConfig config;
    config.stateDir = m_session.stateDir() / "hosted";
    config.data = {std::filesystem::path(QDir::fromNativeSeparators(m_dataEdit->text().trimmed()).toStdString())};
    config.listenHost = "0.0.0.0";
    config.listenPort = m_port->value();
    config.tlsSelfSigned = true;
    config.model.nLayer = size.layers;
    config.model.nEmbd = size.width;
    config.model.nHead = 4;
    config.model.blockSize = size.blockSize;
    config.training.innerSteps = 50;
    config.training.batchSize = 8;
    config.training.lr = 1e-3;
    config.training.warmupIters = 20;
    // Time-budgeted rounds, as the command line's default: the friends' PCs differ.
    config.training.timeBudgeted = true;
    config.training.minInnerSteps = config.training.innerSteps / 8;
    config.training.maxInnerSteps = 4 * config.training.innerSteps;
    config.heartbeatIntervalSeconds = 2;
    config.gatherTimeoutSeconds = 10;
    config.roundDeadlineSeconds = 120;
    config.sharding.shardTokens = 64 * 1024;
    config.evalIters = 4;
    return config;
}

void SwarmPage::startHosting()
{
    const QString data = m_dataEdit->text().trimmed();
    if (data.isEmpty()) {
        setMessage(m_hostMessage, tr("Choose a text file to train on."), true);
        return;
    }
    if (!QFileInfo(data).isFile()) {
        setMessage(m_hostMessage, tr("\"%1\" is not a file.").arg(QDir::toNativeSeparators(data)), true);
        return;
    }
    m_hostError.clear();
    m_hostStarting = true;
    m_session.hostSwarm(hostedConfig());
    showHosting(false, {}, {});
}

void SwarmPage::showHosting(bool hosting, const QString &invite, const QString &error)
{
    if (hosting || !error.isEmpty())
        m_hostStarting = false;
    m_hostError = error;
    m_invite->setText(hosting ? invite : QString());
    m_copyInvite->setEnabled(hosting && !invite.isEmpty());
    m_startHosting->setEnabled(!hosting && !m_hostStarting);
    m_stopHosting->setEnabled(hosting || m_hostStarting);
    for (QWidget *field : {static_cast<QWidget *>(m_dataEdit), static_cast<QWidget *>(m_browse),
                           static_cast<QWidget *>(m_port), static_cast<QWidget *>(m_modelSize)})
        field->setEnabled(!hosting && !m_hostStarting);
    if (!error.isEmpty())
        setMessage(m_hostMessage, tr("The swarm could not start: %1").arg(error), true);
    else if (hosting)
        setMessage(m_hostMessage, tr("Your swarm is running, and this PC trains in it. Send friends the invite link."),
                   false);
    else if (m_hostStarting)
        setMessage(m_hostMessage, tr("Starting the swarm…"), false);
    else
        m_hostMessage->hide();
}

void SwarmPage::chooseData()
{
    const QString start = m_dataEdit->text().isEmpty() ? QDir::homePath() : QFileInfo(m_dataEdit->text()).absolutePath();
    const QString file = QFileDialog::getOpenFileName(this, tr("Choose a text file to train on"), start,
                                                      tr("Text files (*.txt);;All files (*)"));
    if (!file.isEmpty())
        m_dataEdit->setText(QDir::toNativeSeparators(file));
}

void SwarmPage::setMessage(QLabel *label, const QString &text, bool error)
{
    QPalette palette = this->palette();
    if (error)
        palette.setColor(QPalette::WindowText, QColor(0xe0, 0x31, 0x31));
    label->setPalette(palette);
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

} // namespace swarmtrain

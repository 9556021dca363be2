#include "SettingsPage.h"

#include "ClientSession.h"
#include "PageStyle.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStringListModel>
#include <QTimeEdit>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace swarmtrain {

namespace {

// The languages the app ships, each named in its own language (so a person who cannot read
// the current one still finds theirs); "" follows the system.
struct Language {
    const char16_t *name;
    const char *code;
};
constexpr Language kLanguages[] = {
    {u"English", "en"},         {u"Deutsch", "de"},  {u"Español", "es"},
    {u"Français", "fr"},        {u"简体中文", "zh_CN"}, {u"日本語", "ja"},
    {u"Português (Brasil)", "pt_BR"},
};

QLabel *makeHint(QWidget *parent)
{
    QLabel *hint = makeLabel("caption", parent);
    hint->setWordWrap(true);
    return hint;
}

// A card with its title on top; the caller fills `layout` below the title.
struct Section {
    QFrame *card;
    QLabel *title;
    QVBoxLayout *layout;
};

Section makeSection(QWidget *parent)
{
    Section section{makeCard(parent), nullptr, nullptr};
    section.layout = new QVBoxLayout(section.card);
    section.layout->setContentsMargins(18, 14, 18, 16);
    section.layout->setSpacing(10);
    section.title = makeLabel("title", section.card);
    section.layout->addWidget(section.title);
    return section;
}

QSpinBox *makeSpin(QWidget *parent, const char *name, int min, int max, int step = 1)
{
    auto *spin = new QSpinBox(parent);
    spin->setObjectName(QLatin1StringView(name));
    spin->setRange(min, max);
    spin->setSingleStep(step);
    spin->setGroupSeparatorShown(true);
    spin->setKeyboardTracking(false); // typing "120" applies 120, not 1 and 12 on the way
    spin->setMinimumWidth(120);
    return spin;
}

QTimeEdit *makeTime(QWidget *parent, const char *name)
{
    auto *edit = new QTimeEdit(parent);
    edit->setObjectName(QLatin1StringView(name));
    edit->setDisplayFormat(QStringLiteral("HH:mm"));
    edit->setKeyboardTracking(false);
    return edit;
}

QFormLayout *makeForm()
{
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    form->setLabelAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    form->setHorizontalSpacing(16);
    form->setVerticalSpacing(10);
    return form;
}

} // namespace

template <typename F>
void SettingsPage::change(F &&edit)
{
    if (m_loading)
        return;
    // From the session, not a copy kept here: other parts of the app change preferences too.
    Preferences preferences = m_session.preferences();
    edit(preferences);
    if (!(preferences == m_session.preferences()))
        m_session.setPreferences(preferences);
}

SettingsPage::SettingsPage(ClientSession &session, QWidget *parent) : QWidget(parent), m_session(session)
{
    setObjectName(QStringLiteral("settingsPage"));
    setStyleSheet(pageStyleSheet());
    QVBoxLayout *column = makeScrollingColumn(this, 14);
    QWidget *content = column->parentWidget();

    // When to compute
    const Section whenSection = makeSection(content);
    m_whenTitle = whenSection.title;
    QWidget *const whenCard = whenSection.card;
    auto *when = makeForm();
    whenSection.layout->addLayout(when);
    m_idleLabel = new QLabel(whenCard);
    m_idleMinutes = makeSpin(whenCard, "idleMinutes", 0, 240);
    m_idleLabel->setBuddy(m_idleMinutes);
    when->addRow(m_idleLabel, m_idleMinutes);
    m_idleHint = makeHint(whenCard);
    when->addRow(m_idleHint);
    m_pauseOnBattery = new QCheckBox(whenCard);
    m_pauseOnBattery->setObjectName(QStringLiteral("pauseOnBattery"));
    when->addRow(m_pauseOnBattery);
    m_scheduleEnabled = new QCheckBox(whenCard);
    m_scheduleEnabled->setObjectName(QStringLiteral("scheduleEnabled"));
    m_scheduleStart = makeTime(whenCard, "scheduleStart");
    m_scheduleAnd = new QLabel(whenCard);
    m_scheduleEnd = makeTime(whenCard, "scheduleEnd");
    auto *schedule = new QHBoxLayout;
    schedule->setSpacing(8);
    schedule->addWidget(m_scheduleEnabled);
    schedule->addWidget(m_scheduleStart);
    schedule->addWidget(m_scheduleAnd);
    schedule->addWidget(m_scheduleEnd);
    schedule->addStretch(1);
    when->addRow(schedule);
    column->addWidget(whenSection.card);

    // Games and other programs that want the whole GPU
    const Section appsSection = makeSection(content);
    m_appsTitle = appsSection.title;
    QWidget *const appsCard = appsSection.card;
    QVBoxLayout *apps = appsSection.layout;
    m_appsHint = makeHint(appsCard);
    apps->addWidget(m_appsHint);
    m_apps = new QListWidget(appsCard);
    m_apps->setObjectName(QStringLiteral("exclusiveApps"));
    m_apps->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_apps->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_apps->setMinimumHeight(110);
    m_apps->setMaximumHeight(160);
    apps->addWidget(m_apps);
    m_appName = new QLineEdit(appsCard);
    m_appName->setObjectName(QStringLiteral("appName"));
    m_appName->setClearButtonEnabled(true);
    auto *completer = new QCompleter(new QStringListModel(m_appName), m_appName);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    m_appName->setCompleter(completer);
    m_addApp = new QPushButton(appsCard);
    m_addApp->setObjectName(QStringLiteral("addAppButton"));
    m_removeApp = new QPushButton(appsCard);
    m_removeApp->setObjectName(QStringLiteral("removeAppButton"));
    auto *appButtons = new QHBoxLayout;
    appButtons->setSpacing(8);
    appButtons->addWidget(m_appName, 1);
    appButtons->addWidget(m_addApp);
    appButtons->addWidget(m_removeApp);
    apps->addLayout(appButtons);
    column->addWidget(appsSection.card);

    // Which GPUs train
    const Section gpusSection = makeSection(content);
    m_gpusTitle = gpusSection.title;
    auto *gpus = makeForm();
    gpusSection.layout->addLayout(gpus);
    m_gpuUseLabel = new QLabel(gpusSection.card);
    m_gpuUse = new QComboBox(gpusSection.card);
    m_gpuUse->setObjectName(QStringLiteral("gpuUse"));
    m_gpuUse->addItems(QStringList(3, QString())); // in GpuUse's order: Automatic, Chosen, None
    m_gpuUseLabel->setBuddy(m_gpuUse);
    gpus->addRow(m_gpuUseLabel, m_gpuUse);
    m_gpuChoiceLayout = gpusSection.layout; // the GPUs' checkboxes go between the form and the status
    m_gpuChoiceStatus = makeHint(gpusSection.card);
    m_gpuChoiceStatus->setObjectName(QStringLiteral("gpuChoiceStatus"));
    m_gpuChoiceLayout->addWidget(m_gpuChoiceStatus);
    m_gpuChoiceHint = makeHint(gpusSection.card);
    m_gpuChoiceLayout->addWidget(m_gpuChoiceHint);
    column->addWidget(gpusSection.card);

    // How hard the GPU may work
    const Section gpuSection = makeSection(content);
    m_gpuTitle = gpuSection.title;
    QWidget *const gpuCard = gpuSection.card;
    auto *gpu = makeForm();
    gpuSection.layout->addLayout(gpu);
    m_utilizationLabel = new QLabel(gpuCard);
    m_utilizationSlider = new QSlider(Qt::Horizontal, gpuCard);
    m_utilizationSlider->setObjectName(QStringLiteral("maxGpuUtilizationSlider"));
    m_utilizationSlider->setRange(10, 100);
    m_utilizationSlider->setPageStep(10);
    m_utilizationSlider->setTickInterval(10);
    m_utilizationSlider->setTickPosition(QSlider::TicksBelow);
    m_utilizationSlider->setMinimumWidth(240);
    m_utilization = makeSpin(gpuCard, "maxGpuUtilization", 10, 100, 5);
    m_utilization->setSuffix(QStringLiteral(" %"));
    m_utilization->setMinimumWidth(90);
    m_utilizationLabel->setBuddy(m_utilization);
    auto *utilization = new QHBoxLayout;
    utilization->setSpacing(10);
    utilization->addWidget(m_utilizationSlider, 1);
    utilization->addWidget(m_utilization);
    gpu->addRow(m_utilizationLabel, utilization);
    m_memoryLabel = new QLabel(gpuCard);
    m_memory = makeSpin(gpuCard, "maxGpuMemory", 0, 1048576, 512);
    m_memoryLabel->setBuddy(m_memory);
    gpu->addRow(m_memoryLabel, m_memory);
    m_temperatureLabel = new QLabel(gpuCard);
    m_temperature = makeSpin(gpuCard, "gpuTemperatureLimit", 50, 100);
    m_temperature->setSuffix(QStringLiteral(" °C"));
    m_temperatureLabel->setBuddy(m_temperature);
    gpu->addRow(m_temperatureLabel, m_temperature);
    m_gpuHint = makeHint(gpuCard);
    gpu->addRow(m_gpuHint);
    column->addWidget(gpuSection.card);

    // The app itself
    const Section appSection = makeSection(content);
    m_appTitle = appSection.title;
    QWidget *const appCard = appSection.card;
    auto *app = makeForm();
    appSection.layout->addLayout(app);
    m_displayNameLabel = new QLabel(appCard);
    m_displayName = new QLineEdit(appCard);
    m_displayName->setObjectName(QStringLiteral("displayName"));
    m_displayName->setClearButtonEnabled(true);
    m_displayName->setMinimumWidth(240);
    m_displayNameLabel->setBuddy(m_displayName);
    app->addRow(m_displayNameLabel, m_displayName);
    m_displayNameError = makeLabel("", appCard);
    m_displayNameError->setObjectName(QStringLiteral("displayNameError"));
    m_displayNameError->setWordWrap(true);
    QPalette errorPalette = m_displayNameError->palette();
    errorPalette.setColor(QPalette::WindowText, QColor(0xe0, 0x31, 0x31));
    m_displayNameError->setPalette(errorPalette);
    m_displayNameError->hide();
    app->addRow(m_displayNameError);
    m_displayNameHint = makeHint(appCard);
    app->addRow(m_displayNameHint);
    m_startAtLogin = new QCheckBox(appCard);
    m_startAtLogin->setObjectName(QStringLiteral("startAtLogin"));
    app->addRow(m_startAtLogin);
    m_languageLabel = new QLabel(appCard);
    m_language = new QComboBox(appCard);
    m_language->setObjectName(QStringLiteral("language"));
    m_language->addItem(QString(), QString());
    for (const Language &language : kLanguages)
        m_language->addItem(QString::fromUtf16(language.name), QLatin1StringView(language.code));
    m_language->setMinimumWidth(200);
    m_languageLabel->setBuddy(m_language);
    app->addRow(m_languageLabel, m_language);
    m_diskLabel = new QLabel(appCard);
    m_diskLimit = makeSpin(appCard, "diskLimit", 1, 1000);
    m_diskLimit->setSuffix(QStringLiteral(" GiB"));
    m_diskLabel->setBuddy(m_diskLimit);
    app->addRow(m_diskLabel, m_diskLimit);
    m_diskHint = makeHint(appCard);
    app->addRow(m_diskHint);
    column->addWidget(appSection.card);
    column->addStretch(1);

    connect(m_idleMinutes, &QSpinBox::valueChanged, this,
            [this](int value) { change([value](Preferences &p) { p.idleMinutes = value; }); });
    connect(m_pauseOnBattery, &QCheckBox::toggled, this,
            [this](bool on) { change([on](Preferences &p) { p.pauseOnBattery = on; }); });
    connect(m_scheduleEnabled, &QCheckBox::toggled, this, [this](bool on) {
        change([on](Preferences &p) { p.scheduleEnabled = on; });
        updateEnabled();
    });
    connect(m_scheduleStart, &QTimeEdit::timeChanged, this,
            [this](QTime time) { change([time](Preferences &p) { p.scheduleStart = time; }); });
    connect(m_scheduleEnd, &QTimeEdit::timeChanged, this,
            [this](QTime time) { change([time](Preferences &p) { p.scheduleEnd = time; }); });

    connect(m_addApp, &QPushButton::clicked, this, &SettingsPage::addApp);
    connect(m_appName, &QLineEdit::returnPressed, this, &SettingsPage::addApp);
    connect(m_appName, &QLineEdit::textChanged, this, &SettingsPage::updateEnabled);
    connect(m_removeApp, &QPushButton::clicked, this, &SettingsPage::removeApps);
    connect(m_apps, &QListWidget::itemChanged, this, &SettingsPage::appsEdited);
    connect(m_apps, &QListWidget::itemSelectionChanged, this, &SettingsPage::updateEnabled);

    connect(m_gpuUse, &QComboBox::currentIndexChanged, this, &SettingsPage::gpuUseEdited);
    connect(&m_session, &ClientSession::gpusProbed, this, &SettingsPage::showGpusFound);

    connect(m_utilizationSlider, &QSlider::valueChanged, m_utilization, &QSpinBox::setValue);
    connect(m_utilization, &QSpinBox::valueChanged, this, [this](int value) {
        m_utilizationSlider->setValue(value);
        change([value](Preferences &p) { p.maxGpuUtilization = value; });
    });
    connect(m_memory, &QSpinBox::valueChanged, this,
            [this](int value) { change([value](Preferences &p) { p.maxGpuMemoryMiB = value; }); });
    connect(m_temperature, &QSpinBox::valueChanged, this,
            [this](int value) { change([value](Preferences &p) { p.gpuTemperatureLimit = value; }); });

    connect(m_startAtLogin, &QCheckBox::toggled, this,
            [this](bool on) { change([on](Preferences &p) { p.startAtLogin = on; }); });
    connect(m_language, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QString code = m_language->itemData(index).toString();
        change([code](Preferences &p) { p.language = code; });
    });
    connect(m_displayName, &QLineEdit::textChanged, this, &SettingsPage::showDisplayNameCheck);
    connect(m_displayName, &QLineEdit::editingFinished, this, &SettingsPage::applyDisplayName);
    connect(m_diskLimit, &QSpinBox::valueChanged, this,
            [this](int value) { change([value](Preferences &p) { p.diskLimitGiB = value; }); });

    retranslate();
    load();
}

void SettingsPage::showEvent(QShowEvent *event)
{
    load();
    if (!m_gpus && !std::exchange(m_probing, true)) // the first time it is seen; the Device page's Refresh probes again
        m_session.probeGpus();
    QWidget::showEvent(event);
}

void SettingsPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void SettingsPage::retranslate()
{
    m_whenTitle->setText(tr("When to compute"));
    m_idleLabel->setText(tr("Start after &idle for:"));
    m_idleMinutes->setSuffix(tr(" min"));
    m_idleMinutes->setSpecialValueText(tr("Always (0 min)"));
    m_idleHint->setText(tr("SwarmTrain computes only when nobody has used the keyboard or mouse for this long, "
                           "and pauses the moment you come back. 0 = always, also while you work."));
    m_pauseOnBattery->setText(tr("Pause while the computer runs on &battery"));
    m_scheduleEnabled->setText(tr("Compute only &between"));
    m_scheduleAnd->setText(tr("and"));

    m_appsTitle->setText(tr("Games and other programs"));
    m_appsHint->setText(tr("While one of these programs runs, SwarmTrain stops and gives the GPU's memory back, "
                           "so the program gets the whole GPU."));
    m_appName->setPlaceholderText(tr("Program name, e.g. game.exe"));
    m_addApp->setText(tr("&Add"));
    m_removeApp->setText(tr("&Remove"));

    m_gpusTitle->setText(tr("GPUs"));
    m_gpuUseLabel->setText(tr("Train &with:"));
    m_gpuUse->setItemText(0, tr("Automatic: the best GPU found, else the processor"));
    m_gpuUse->setItemText(1, tr("Only the GPUs ticked below"));
    m_gpuUse->setItemText(2, tr("None: train on the processor only"));
    m_gpuChoiceHint->setText(tr("Each GPU ticked trains a model copy of its own. Changing this restarts training."));
    showGpuChoices();

    m_gpuTitle->setText(tr("GPU limits"));
    m_utilizationLabel->setText(tr("Maximum GPU &utilization:"));
    m_memoryLabel->setText(tr("Maximum GPU &memory:"));
    m_memory->setSuffix(tr(" MiB"));
    m_memory->setSpecialValueText(tr("Automatic"));
    m_temperatureLabel->setText(tr("Pause at GPU &temperature:"));
    m_gpuHint->setText(tr("Lower utilization keeps the GPU cooler and quieter; training then takes longer. "
                          "Training resumes when the GPU has cooled 5 °C below the limit."));

    m_appTitle->setText(tr("Application"));
    m_displayNameLabel->setText(tr("Display &name:"));
    m_displayName->setPlaceholderText(tr("None: the leaderboard shows this PC's key id"));
    m_displayNameHint->setText(tr("Shown beside this PC's credit on the swarm's leaderboard, from the next time it "
                                  "joins a swarm. Anyone can read it, and other PCs may use the same name."));
    showDisplayNameCheck();
    m_startAtLogin->setText(tr("&Start SwarmTrain when I log in"));
    m_languageLabel->setText(tr("&Language:"));
    m_language->setItemText(0, tr("System default"));
    m_diskLabel->setText(tr("&Disk space limit:"));
    m_diskHint->setText(tr("For downloaded training data, checkpoints and this PC's copy of the model."));
}

void SettingsPage::load()
{
    const Preferences p = m_session.preferences();
    m_loading = true;
    m_idleMinutes->setValue(p.idleMinutes);
    m_pauseOnBattery->setChecked(p.pauseOnBattery);
    m_scheduleEnabled->setChecked(p.scheduleEnabled);
    m_scheduleStart->setTime(p.scheduleStart);
    m_scheduleEnd->setTime(p.scheduleEnd);
    {
        const QSignalBlocker blocker(m_apps);
        m_apps->clear();
        for (const QString &app : p.exclusiveApps) {
            auto *item = new QListWidgetItem(app, m_apps);
            item->setFlags(item->flags() | Qt::ItemIsEditable);
        }
    }
    m_utilization->setValue(p.maxGpuUtilization);
    m_memory->setValue(p.maxGpuMemoryMiB);
    m_temperature->setValue(p.gpuTemperatureLimit);
    m_gpuUse->setCurrentIndex(int(p.gpuUse));
    m_startAtLogin->setChecked(p.startAtLogin);
    m_displayName->setText(p.displayName);
    int language = m_language->findData(p.language);
    if (language < 0) { // a language this version does not know: keep it, named by its code
        m_language->addItem(p.language, p.language);
        language = m_language->count() - 1;
    }
    m_language->setCurrentIndex(language);
    m_diskLimit->setValue(p.diskLimitGiB);
    m_loading = false;

    // What runs now, as suggestions for the program name.
    QStringList running;
    for (const std::string &name : m_session.throttle().lastSignals().runningProcesses)
        running.append(QString::fromStdString(name));
    running.removeDuplicates();
    running.sort(Qt::CaseInsensitive);
    static_cast<QStringListModel *>(m_appName->completer()->model())->setStringList(running);
    updateEnabled();
    showGpuChoices();
}

void SettingsPage::addApp()
{
    const QString name = m_appName->text().trimmed();
    if (name.isEmpty())
        return;
    m_appName->clear();
    const QList<QListWidgetItem *> same = m_apps->findItems(name, Qt::MatchFixedString); // case-insensitive
    if (!same.isEmpty()) {
        m_apps->setCurrentItem(same.first());
        return;
    }
    auto *item = new QListWidgetItem(name, m_apps);
    item->setFlags(item->flags() | Qt::ItemIsEditable);
    m_apps->setCurrentItem(item);
    appsEdited();
}

void SettingsPage::removeApps()
{
    const QList<QListWidgetItem *> selected = m_apps->selectedItems();
    if (selected.isEmpty())
        return;
    for (QListWidgetItem *item : selected)
        delete item;
    appsEdited();
}

void SettingsPage::appsEdited()
{
    QStringList names;
    {
        const QSignalBlocker blocker(m_apps);
        for (int row = m_apps->count() - 1; row >= 0; --row) {
            QListWidgetItem *item = m_apps->item(row);
            const QString name = item->text().trimmed();
            if (name.isEmpty()) { // edited down to nothing: gone
                delete item;
                continue;
            }
            item->setText(name);
            names.prepend(name);
        }
    }
    change([&names](Preferences &p) { p.exclusiveApps = names; });
    updateEnabled();
}

DisplayNameCheck SettingsPage::showDisplayNameCheck()
{
    const DisplayNameCheck check = validateDisplayName(m_displayName->text());
    QString why;
    if (check.fault) {
        switch (*check.fault) {
        case DisplayNameFault::TooLong:
            why = tr("The name is longer than %1 characters.").arg(protocol::kMaxDisplayNameChars);
            break;
        case DisplayNameFault::ControlCharacter:
            why = tr("The name may not contain line breaks or control characters.");
            break;
        case DisplayNameFault::BidiControl:
            why = tr("The name may not contain characters that change the direction of the text.");
            break;
        case DisplayNameFault::ZeroWidth:
            why = tr("The name may not contain invisible (zero-width) characters.");
            break;
        case DisplayNameFault::OnlyWhitespace:
            why = tr("The name may not be only spaces.");
            break;
        }
    }
    m_displayNameError->setText(why);
    m_displayNameError->setVisible(!why.isEmpty());
    return check;
}

void SettingsPage::applyDisplayName()
{
    const DisplayNameCheck check = showDisplayNameCheck();
    if (!check.ok())
        return; // kept as typed, with the reason beside it, until it is fixed
    change([&check](Preferences &p) { p.displayName = check.name; });
}

void SettingsPage::showGpusFound(const GpuReport &report)
{
    m_probing = false; // whoever asked: the Device page's answers are as good
    m_gpus = report;
    qDeleteAll(m_gpuChoices);
    m_gpuChoices.clear();
    for (const GpuInfo &gpu : report.gpus) {
        const QString uuid = QString::fromStdString(gpu.uuid);
        auto *box = new QCheckBox;
        box->setObjectName(QStringLiteral("gpuChoice"));
        box->setProperty("uuid", uuid);
        box->setToolTip(gpu.usable ? QString() : QString::fromStdString(gpu.unusableReason));
        m_gpuChoiceLayout->insertWidget(m_gpuChoiceLayout->indexOf(m_gpuChoiceStatus), box);
        m_gpuChoices.append(box);
        connect(box, &QCheckBox::toggled, this, [this, uuid](bool ticked) {
            change([&uuid, ticked](Preferences &p) { // this GPU's only: one unplugged for a while stays chosen
                p.gpuUuids.removeAll(uuid);
                if (ticked)
                    p.gpuUuids.append(uuid);
            });
        });
    }
    if (m_tickWhenProbed) // still on "Only the GPUs ticked below": any other choice clears it
        gpuUseEdited(m_gpuUse->currentIndex()); // ticks the usable GPUs now found
    showGpuChoices();
}

void SettingsPage::showGpuChoices()
{
    const QStringList chosenUuids = m_session.preferences().gpuUuids;
    const bool chosen = GpuUse(m_gpuUse->currentIndex()) == GpuUse::Chosen;
    for (qsizetype i = 0; i < m_gpuChoices.size(); ++i) {
        const GpuInfo &gpu = m_gpus->gpus[std::size_t(i)];
        QCheckBox *box = m_gpuChoices[i];
        const QString name = QString::fromStdString(gpu.name);
        const QString gib = QLocale().toString(double(gpu.memoryTotalBytes) / double(1ull << 30), 'f', 1); // as the Device page
        box->setText(gpu.memoryTotalBytes == 0 ? name : tr("%1, %2 GiB").arg(name, gib));
        const QSignalBlocker blocker(box);
        box->setChecked(gpu.usable && chosenUuids.contains(box->property("uuid").toString()));
        box->setEnabled(gpu.usable && chosen);
    }
    QString status;
    if (!m_gpus || m_gpus->gpus.empty())
        status = m_gpus ? tr("No GPU found: the processor trains.") : tr("Looking for GPUs…");
    else if (chosen && std::none_of(m_gpus->gpus.begin(), m_gpus->gpus.end(), [](const GpuInfo &gpu) { return gpu.usable; }))
        status = tr("None of the GPUs found can train with this build.");
    m_gpuChoiceStatus->setText(status);
    m_gpuChoiceStatus->setVisible(!status.isEmpty());
}

void SettingsPage::gpuUseEdited(int index)
{
    const auto use = GpuUse(index);
    m_tickWhenProbed = !m_loading && use == GpuUse::Chosen && !m_gpus;
    change([this, use](Preferences &p) {
        p.gpuUse = use;
        if (use != GpuUse::Chosen || !m_gpus)
            return;
        // With none of the GPUs found ticked yet: every usable one, so the choice is never empty by accident.
        QStringList usable;
        for (const GpuInfo &gpu : m_gpus->gpus)
            if (gpu.usable)
                usable.append(QString::fromStdString(gpu.uuid));
        if (std::none_of(usable.begin(), usable.end(), [&p](const QString &uuid) { return p.gpuUuids.contains(uuid); }))
            p.gpuUuids.append(usable);
    });
    showGpuChoices();
}

void SettingsPage::updateEnabled()
{
    const bool schedule = m_scheduleEnabled->isChecked();
    m_scheduleStart->setEnabled(schedule);
    m_scheduleAnd->setEnabled(schedule);
    m_scheduleEnd->setEnabled(schedule);
    m_addApp->setEnabled(!m_appName->text().trimmed().isEmpty());
    m_removeApp->setEnabled(!m_apps->selectedItems().isEmpty());
}

} // namespace swarmtrain

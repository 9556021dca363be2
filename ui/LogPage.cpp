#include "LogPage.h"

#include "PageStyle.h"

#include <QAbstractTableModel>
#include <QAction>
#include <QApplication>
#include <QBrush>
#include <QClipboard>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPalette>
#include <QPixmap>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace swarmtrain {

namespace {

enum Column { TimeColumn, LevelColumn, CategoryColumn, MessageColumn, ColumnCount };

// QtMsgType's values are not in order of severity (QtInfoMsg came last).
int severity(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return 0;
    case QtInfoMsg:
        return 1;
    case QtWarningMsg:
        return 2;
    case QtCriticalMsg:
        return 3;
    case QtFatalMsg:
        return 4;
    }
    return 0;
}

QString levelName(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return QCoreApplication::translate("swarmtrain::LogPage", "Debug");
    case QtInfoMsg:
        return QCoreApplication::translate("swarmtrain::LogPage", "Info");
    case QtWarningMsg:
        return QCoreApplication::translate("swarmtrain::LogPage", "Warning");
    case QtCriticalMsg:
        return QCoreApplication::translate("swarmtrain::LogPage", "Error");
    case QtFatalMsg:
        return QCoreApplication::translate("swarmtrain::LogPage", "Fatal");
    }
    return {};
}

QString formatEntry(const LogEntry &entry)
{
    return entry.at.toString(Qt::ISODateWithMs) + QLatin1Char('\t') + levelName(entry.type) + QLatin1Char('\t')
           + entry.category + QLatin1Char('\t') + entry.text;
}

} // namespace

// The messages, oldest first, at most LogCapture::kCapacity of them like the capture itself.
class LogTableModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    const LogEntry &entry(int row) const { return m_entries.at(row); }

    void append(const LogEntry &entry)
    {
        if (m_entries.size() >= LogCapture::kCapacity) {
            beginRemoveRows({}, 0, 0);
            m_entries.removeFirst();
            endRemoveRows();
        }
        beginInsertRows({}, int(m_entries.size()), int(m_entries.size()));
        m_entries.append(entry);
        endInsertRows();
    }

    void retranslate()
    {
        Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
        if (!m_entries.isEmpty())
            Q_EMIT dataChanged(index(0, LevelColumn), index(int(m_entries.size()) - 1, LevelColumn));
    }

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_entries.size()); }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }

    QVariant data(const QModelIndex &index, int role) const override
    {
        if (!index.isValid() || index.row() >= m_entries.size())
            return {};
        const LogEntry &e = m_entries.at(index.row());
        switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
            case TimeColumn:
                return e.at.toString(QStringLiteral("HH:mm:ss"));
            case LevelColumn:
                return levelName(e.type);
            case CategoryColumn:
                return e.category;
            case MessageColumn:
                return e.text.simplified(); // one line per message; the tooltip has it all
            }
            break;
        case Qt::ToolTipRole:
            if (index.column() == TimeColumn)
                return QLocale().toString(e.at, QLocale::LongFormat);
            if (index.column() == MessageColumn)
                return e.text;
            break;
        case Qt::DecorationRole:
            if (index.column() == LevelColumn)
                return levelIcon(e.type);
            break;
        case Qt::ForegroundRole:
            if (index.column() == TimeColumn || index.column() == CategoryColumn)
                break;
            if (severity(e.type) >= severity(QtCriticalMsg))
                return QBrush(QColor(0xc6, 0x28, 0x28));
            if (e.type == QtWarningMsg)
                return QBrush(QColor(0xb2, 0x6a, 0x00));
            if (e.type == QtDebugMsg)
                return QApplication::palette().brush(QPalette::Disabled, QPalette::Text);
            break;
        }
        return {};
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
            return {};
        switch (section) {
        case TimeColumn:
            return QCoreApplication::translate("swarmtrain::LogPage", "Time");
        case LevelColumn:
            return QCoreApplication::translate("swarmtrain::LogPage", "Level");
        case CategoryColumn:
            return QCoreApplication::translate("swarmtrain::LogPage", "Category");
        case MessageColumn:
            return QCoreApplication::translate("swarmtrain::LogPage", "Message");
        }
        return {};
    }

private:
    static QIcon levelIcon(QtMsgType type)
    {
        QStyle *style = QApplication::style();
        switch (severity(type)) {
        case 0:
        case 1: { // the usual case stays quiet, in line with the rest; what needs a look stands out
            static const QIcon blank = [] {
                QPixmap pixmap(16, 16);
                pixmap.fill(Qt::transparent);
                return QIcon(pixmap);
            }();
            return blank;
        }
        case 2:
            return style->standardIcon(QStyle::SP_MessageBoxWarning);
        default:
            return style->standardIcon(QStyle::SP_MessageBoxCritical);
        }
    }

    QList<LogEntry> m_entries;
};

// The page's three filters over LogTableModel.
class LogFilterModel : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setFilters(const QString &category, int minimumSeverity, const QString &text)
    {
        m_category = category;
        m_minimumSeverity = minimumSeverity;
        m_text = text.trimmed();
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &) const override
    {
        const LogEntry &e = static_cast<const LogTableModel *>(sourceModel())->entry(sourceRow);
        if (!m_category.isEmpty() && e.category != m_category)
            return false;
        if (severity(e.type) < m_minimumSeverity)
            return false;
        return m_text.isEmpty() || e.text.contains(m_text, Qt::CaseInsensitive)
               || e.category.contains(m_text, Qt::CaseInsensitive);
    }

private:
    QString m_category; // "": every category
    int m_minimumSeverity = 0;
    QString m_text;
};

LogPage::LogPage(LogCapture &log, QWidget *parent)
    : QWidget(parent), m_model(new LogTableModel(this)), m_filter(new LogFilterModel(this))
{
    m_filter->setSourceModel(m_model);

    m_categoryLabel = new QLabel(this);
    m_category = new QComboBox(this);
    m_category->setObjectName(QStringLiteral("categoryFilter"));
    // Category names can be long; the popup shows them whole.
    m_category->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_category->setMinimumContentsLength(16);
    m_category->addItem(QString(), QString());
    m_categoryLabel->setBuddy(m_category);

    m_levelLabel = new QLabel(this);
    m_level = new QComboBox(this);
    m_level->setObjectName(QStringLiteral("levelFilter"));
    m_level->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_level->addItem(QString(), severity(QtDebugMsg));
    m_level->addItem(QString(), severity(QtInfoMsg));
    m_level->addItem(QString(), severity(QtWarningMsg));
    m_levelLabel->setBuddy(m_level);

    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("textFilter"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(140);

    m_count = makeLabel("caption", this);
    m_count->setObjectName(QStringLiteral("countLabel"));

    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("logView"));
    m_view->setModel(m_filter);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    QHeaderView *header = m_view->horizontalHeader();
    header->setHighlightSections(false);
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    header->setSectionResizeMode(TimeColumn, QHeaderView::Interactive);
    header->resizeSection(TimeColumn, m_view->fontMetrics().horizontalAdvance(QStringLiteral("00:00:00")) + 24);
    header->setSectionResizeMode(LevelColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(CategoryColumn, QHeaderView::Interactive);
    header->setStretchLastSection(true);
    header->resizeSection(CategoryColumn, m_view->fontMetrics().horizontalAdvance(QStringLiteral("swarmtrain.coordinator")) + 24);

    m_copyAction = new QAction(this);
    m_copyAction->setObjectName(QStringLiteral("copyAction"));
    m_copyAction->setShortcut(QKeySequence::Copy);
    m_copyAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_view->addAction(m_copyAction);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(m_copyAction, &QAction::triggered, this, &LogPage::copySelection);

    auto *filters = new QHBoxLayout;
    filters->setSpacing(8);
    filters->addWidget(m_categoryLabel);
    filters->addWidget(m_category);
    filters->addSpacing(12);
    filters->addWidget(m_levelLabel);
    filters->addWidget(m_level);
    filters->addSpacing(12);
    filters->addWidget(m_search, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 16, 16, 16);
    layout->setSpacing(10);
    layout->addLayout(filters);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_count);

    connect(m_category, &QComboBox::currentIndexChanged, this, &LogPage::applyFilters);
    connect(m_level, &QComboBox::currentIndexChanged, this, &LogPage::applyFilters);
    connect(m_search, &QLineEdit::textChanged, this, &LogPage::applyFilters);
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, &LogPage::updateCount);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &LogPage::updateCount);
    connect(m_filter, &QAbstractItemModel::modelReset, this, &LogPage::updateCount);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, &LogPage::updateCount);

    retranslate();
    // Subscribe before reading the backlog, so nothing falls in between; a message in both
    // (its queued signal not yet delivered) is recognised by its sequence number.
    connect(&log, &LogCapture::messageLogged, this, &LogPage::append);
    const QList<LogEntry> backlog = log.entries();
    for (const LogEntry &entry : backlog)
        append(entry);
    m_view->scrollToBottom();
}

LogPage::~LogPage() = default;

void LogPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void LogPage::retranslate()
{
    m_categoryLabel->setText(tr("&Category:"));
    m_category->setItemText(0, tr("All categories"));
    m_levelLabel->setText(tr("&Level:"));
    m_level->setItemText(0, tr("All messages"));
    m_level->setItemText(1, tr("Info and above"));
    m_level->setItemText(2, tr("Warnings and errors"));
    m_search->setPlaceholderText(tr("Search messages…"));
    m_copyAction->setText(tr("&Copy"));
    int levelWidth = 0; // the longest level name in this language, after its icon
    for (QtMsgType type : {QtDebugMsg, QtInfoMsg, QtWarningMsg, QtCriticalMsg, QtFatalMsg})
        levelWidth = std::max(levelWidth, m_view->fontMetrics().horizontalAdvance(levelName(type)));
    m_view->horizontalHeader()->resizeSection(LevelColumn, levelWidth + 44);
    m_model->retranslate();
    updateCount();
}

void LogPage::append(const LogEntry &entry)
{
    if (entry.sequence != 0 && entry.sequence <= m_lastSequence)
        return;
    m_lastSequence = entry.sequence;
    QScrollBar *bar = m_view->verticalScrollBar();
    const bool atBottom = bar->value() >= bar->maximum();
    m_model->append(entry);
    addCategory(entry.category);
    if (atBottom)
        m_view->scrollToBottom();
}

void LogPage::addCategory(const QString &category)
{
    if (m_category->findData(category) >= 0)
        return;
    int row = 1; // after "All categories"
    while (row < m_category->count() && m_category->itemData(row).toString() < category)
        ++row;
    m_category->insertItem(row, category, category);
}

void LogPage::applyFilters()
{
    m_filter->setFilters(m_category->currentData().toString(), m_level->currentData().toInt(), m_search->text());
    updateCount();
    m_view->scrollToBottom();
}

void LogPage::updateCount()
{
    const int shown = m_filter->rowCount();
    const int all = m_model->rowCount();
    const QLocale locale;
    m_count->setText(shown == all ? tr("Messages: %1").arg(locale.toString(all))
                                  : tr("Showing %1 of %2").arg(locale.toString(shown), locale.toString(all)));
}

void LogPage::copySelection()
{
    QModelIndexList rows = m_view->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QStringList lines;
    for (const QModelIndex &row : std::as_const(rows))
        lines.append(formatEntry(m_model->entry(m_filter->mapToSource(row).row())));
    if (!lines.isEmpty())
        QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')) + QLatin1Char('\n'));
}

} // namespace swarmtrain

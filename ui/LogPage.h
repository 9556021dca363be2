#pragma once

#include "LogCapture.h"

#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace swarmtrain {

class LogFilterModel;
class LogTableModel;

// The Log page: what the logging categories said recently (LogCapture), newest at the bottom,
// filterable by category, level and text. It follows new messages while scrolled to the end
// and stays put while the person reads further up.
class LogPage : public QWidget {
    Q_OBJECT

public:
    explicit LogPage(LogCapture &log, QWidget *parent = nullptr);
    ~LogPage() override;

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void append(const LogEntry &entry);
    void addCategory(const QString &category);
    void applyFilters();
    void updateCount();
    void copySelection();

    LogTableModel *m_model = nullptr;
    LogFilterModel *m_filter = nullptr;
    QTableView *m_view = nullptr;
    QLabel *m_categoryLabel = nullptr;
    QComboBox *m_category = nullptr;
    QLabel *m_levelLabel = nullptr;
    QComboBox *m_level = nullptr;
    QLineEdit *m_search = nullptr;
    QLabel *m_count = nullptr;
    QAction *m_copyAction = nullptr;
    quint64 m_lastSequence = 0;
};

} // namespace swarmtrain

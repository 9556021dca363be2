#include "LogPage.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QScrollBar>
#include <QTableView>
#include <QTest>
#include <QUuid>

#include <gtest/gtest.h>

#include <thread>

namespace swarmtrain {
namespace {

Q_LOGGING_CATEGORY(lcAlpha, "swarmtrain.test.alpha")
Q_LOGGING_CATEGORY(lcBeta, "swarmtrain.test.beta")

constexpr int kWaitMs = 5000;

struct Row {
    QString level;
    QString category;
    QString message;
};

class LogPageTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_log.install());
        m_page = std::make_unique<LogPage>(m_log);
        m_page->resize(900, 500);
        m_page->show();
        m_view = m_page->findChild<QTableView *>(QStringLiteral("logView"));
        m_category = m_page->findChild<QComboBox *>(QStringLiteral("categoryFilter"));
        m_level = m_page->findChild<QComboBox *>(QStringLiteral("levelFilter"));
        m_text = m_page->findChild<QLineEdit *>(QStringLiteral("textFilter"));
        ASSERT_TRUE(m_view && m_category && m_level && m_text);
    }

    // A word no other test logs, so messages left from earlier tests do not count.
    static QString unique() { return QUuid::createUuid().toString(QUuid::WithoutBraces); }

    QList<Row> rows() const
    {
        QList<Row> all;
        const QAbstractItemModel *model = m_view->model();
        for (int r = 0; r < model->rowCount(); ++r)
            all.append({model->index(r, 1).data().toString(), model->index(r, 2).data().toString(),
                        model->index(r, 3).data().toString()});
        return all;
    }

    // The rows shown whose message contains `marker`.
    QList<Row> shown(const QString &marker) const
    {
        QList<Row> matching;
        for (const Row &row : rows())
            if (row.message.contains(marker))
                matching.append(row);
        return matching;
    }

    bool waitForShown(const QString &marker, int count) const
    {
        return QTest::qWaitFor([&] { return shown(marker).size() == count; }, kWaitMs);
    }

    // Logs an info and a warning in each of two categories.
    void logFour(const QString &marker)
    {
        qCInfo(lcAlpha).noquote() << "alpha info" << marker;
        qCWarning(lcAlpha).noquote() << "alpha warning" << marker;
        qCInfo(lcBeta).noquote() << "beta info" << marker;
        qCWarning(lcBeta).noquote() << "beta warning" << marker;
    }

    LogCapture m_log; // outlives the page
    std::unique_ptr<LogPage> m_page;
    QTableView *m_view = nullptr;
    QComboBox *m_category = nullptr;
    QComboBox *m_level = nullptr;
    QLineEdit *m_text = nullptr;
};

TEST_F(LogPageTest, MessagesFromTwoCategoriesAppear)
{
    const QString marker = unique();
    logFour(marker);
    ASSERT_TRUE(waitForShown(marker, 4));
    const QList<Row> four = shown(marker);
    EXPECT_EQ(four[0].category, QStringLiteral("swarmtrain.test.alpha"));
    EXPECT_EQ(four[0].level, QStringLiteral("Info"));
    EXPECT_EQ(four[0].message, QStringLiteral("alpha info ") + marker);
    EXPECT_EQ(four[1].level, QStringLiteral("Warning"));
    EXPECT_EQ(four[3].category, QStringLiteral("swarmtrain.test.beta"));
    EXPECT_EQ(four[3].message, QStringLiteral("beta warning ") + marker);
    EXPECT_GE(m_category->findData(QStringLiteral("swarmtrain.test.alpha")), 1);
    EXPECT_GE(m_category->findData(QStringLiteral("swarmtrain.test.beta")), 1);
}

TEST_F(LogPageTest, FiltersByCategoryLevelAndText)
{
    const QString marker = unique();
    logFour(marker);
    ASSERT_TRUE(waitForShown(marker, 4));

    m_category->setCurrentIndex(m_category->findData(QStringLiteral("swarmtrain.test.beta")));
    for (const Row &row : rows())
        EXPECT_EQ(row.category, QStringLiteral("swarmtrain.test.beta"));
    EXPECT_EQ(shown(marker).size(), 2);

    m_level->setCurrentIndex(2); // warnings and errors
    ASSERT_EQ(shown(marker).size(), 1);
    EXPECT_EQ(shown(marker)[0].message, QStringLiteral("beta warning ") + marker);
    for (const Row &row : rows())
        EXPECT_EQ(row.level, QStringLiteral("Warning"));

    m_category->setCurrentIndex(0); // all categories, still warnings only
    EXPECT_EQ(shown(marker).size(), 2);

    m_level->setCurrentIndex(0);
    m_text->setText(marker.toUpper()); // case-insensitive
    EXPECT_EQ(rows().size(), 4);
    EXPECT_TRUE(m_page->findChild<QLabel *>(QStringLiteral("countLabel"))->text().startsWith(QStringLiteral("Showing 4 of")));
    m_text->setText(QStringLiteral("alpha warning ") + marker);
    ASSERT_EQ(rows().size(), 1);
    EXPECT_EQ(rows()[0].category, QStringLiteral("swarmtrain.test.alpha"));
    m_text->setText(marker);

    // A new message that does not pass the filters stays out; one that does comes in.
    m_level->setCurrentIndex(1); // info and above
    qCDebug(lcAlpha).noquote() << "alpha debug" << marker;
    qCInfo(lcBeta).noquote() << "beta later" << marker;
    ASSERT_TRUE(waitForShown(marker, 5));
    EXPECT_TRUE(shown(marker).constLast().message.startsWith(QStringLiteral("beta later")));
    m_level->setCurrentIndex(0); // debug messages too, where the logging rules let them through
    EXPECT_EQ(shown(marker).size(), lcAlpha().isDebugEnabled() ? 6 : 5);
}

TEST_F(LogPageTest, ShowsEarlierMessagesOnceAndMessagesFromOtherThreads)
{
    const QString marker = unique();
    qCInfo(lcAlpha).noquote() << "before the page" << marker; // its queued signal is still pending
    LogPage late(m_log);
    auto *view = late.findChild<QTableView *>(QStringLiteral("logView"));
    std::thread worker([&] {
        for (int i = 0; i < 50; ++i)
            qCInfo(lcBeta).noquote() << "from a worker" << i << marker;
    });
    worker.join();
    const auto count = [&] {
        int n = 0;
        for (int r = 0; r < view->model()->rowCount(); ++r)
            n += view->model()->index(r, 3).data().toString().contains(marker);
        return n;
    };
    ASSERT_TRUE(QTest::qWaitFor([&] { return count() == 51; }, kWaitMs)) << count();
    QTest::qWait(50); // a duplicate would come with the queued signals already delivered
    EXPECT_EQ(count(), 51);
}

TEST_F(LogPageTest, FollowsNewMessagesOnlyAtTheBottom)
{
    const QString marker = unique();
    for (int i = 0; i < 100; ++i)
        qCInfo(lcAlpha).noquote() << "line" << i << marker;
    ASSERT_TRUE(waitForShown(marker, 100));
    QScrollBar *bar = m_view->verticalScrollBar();
    ASSERT_GT(bar->maximum(), 0);
    EXPECT_EQ(bar->value(), bar->maximum());

    bar->setValue(0); // reading older messages
    qCInfo(lcAlpha).noquote() << "one more" << marker;
    ASSERT_TRUE(waitForShown(marker, 101));
    EXPECT_EQ(bar->value(), 0);

    bar->setValue(bar->maximum());
    qCInfo(lcAlpha).noquote() << "and another" << marker;
    ASSERT_TRUE(waitForShown(marker, 102));
    EXPECT_EQ(bar->value(), bar->maximum());
}

TEST_F(LogPageTest, CopiesTheSelectedMessages)
{
    const QString marker = unique();
    logFour(marker);
    ASSERT_TRUE(waitForShown(marker, 4));
    m_text->setText(marker);
    m_view->selectRow(1);
    QAction *copy = m_page->findChild<QAction *>(QStringLiteral("copyAction"));
    ASSERT_NE(copy, nullptr);
    copy->trigger();
    const QString copied = QApplication::clipboard()->text();
    EXPECT_TRUE(copied.contains(QStringLiteral("\tWarning\tswarmtrain.test.alpha\talpha warning ") + marker))
        << copied.toStdString();
}

} // namespace
} // namespace swarmtrain

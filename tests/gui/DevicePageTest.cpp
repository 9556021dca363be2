#include "DevicePage.h"

#include "GuiTest.h"

#include <QFrame>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <cstdlib>

namespace swarmtrain {
namespace {

constexpr int kProbeWaitMs = 20000;
constexpr int kBenchmarkWaitMs = 150000; // the real benchmark on one CPU thread takes seconds; ctest allows 180 s

class DevicePageTest : public test::GuiTest {
protected:
    static QList<QFrame *> cards(const DevicePage &page)
    {
        return page.findChildren<QFrame *>(QStringLiteral("gpuCard"));
    }

    // The words the page shows, for checking figures and units.
    static QStringList texts(const QWidget &widget)
    {
        QStringList all;
        for (const QLabel *label : widget.findChildren<QLabel *>())
            if (label->isVisibleTo(&widget))
                all.append(label->text());
        return all;
    }

private:
    test::EnglishFigures m_english; // "24.0 GiB"; also forgets FAKE_NVML_MODE
};

TEST_F(DevicePageTest, ListsTheGpusTheProbeFinds)
{
    ::setenv("FAKE_NVML_MODE", "ok", 1);
    ClientSession session(sessionOptionsProbing(FAKE_NVML));
    DevicePage page(session);
    page.resize(900, 700);
    page.show(); // probes when first shown

    ASSERT_TRUE(QTest::qWaitFor([&] { return cards(page).size() == 2; }, kProbeWaitMs));
    const QList<QFrame *> found = cards(page);
    EXPECT_EQ(found[0]->findChild<QLabel *>(QStringLiteral("gpuName"))->text(), QStringLiteral("NVIDIA GeForce RTX 3080"));
    EXPECT_EQ(found[1]->findChild<QLabel *>(QStringLiteral("gpuName"))->text(), QStringLiteral("NVIDIA GeForce RTX 4090"));
    const QStringList first = texts(*found[0]);
    EXPECT_TRUE(first.contains(QStringLiteral("NVIDIA"))) << first.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(first.contains(QStringLiteral("9.0 GiB free of 10.0 GiB"))) << first.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(first.contains(QStringLiteral("64 °C")));
    EXPECT_TRUE(first.contains(QStringLiteral("37 %")));
    EXPECT_TRUE(first.contains(QStringLiteral("550.54.14")));
    EXPECT_TRUE(first.contains(QStringLiteral("8.6")));
    EXPECT_TRUE(texts(*found[1]).contains(QStringLiteral("20.0 GiB free of 24.0 GiB")));
    EXPECT_EQ(page.findChild<QLabel *>(QStringLiteral("noGpuLabel")), nullptr);
    EXPECT_FALSE(page.findChild<QLabel *>(QStringLiteral("gpuWarnings"))->isVisible());
    EXPECT_TRUE(page.findChild<QPushButton *>(QStringLiteral("refreshButton"))->isEnabled());
}

TEST_F(DevicePageTest, SaysSoWhenThereIsNoGpu)
{
    ClientSession session(sessionOptionsProbing("/nonexistent/libnvidia-ml.so.1"));
    DevicePage page(session);
    page.show();
    const auto none = [&] { return page.findChild<QLabel *>(QStringLiteral("noGpuLabel")); };
    ASSERT_TRUE(QTest::qWaitFor([&] { return none() && none()->isVisible(); }, kProbeWaitMs));
    EXPECT_EQ(none()->text(), QStringLiteral("No GPU found — SwarmTrain trains on the CPU"));
    EXPECT_TRUE(cards(page).isEmpty());
}

TEST_F(DevicePageTest, RefreshProbesAgainAndShowsWarnings)
{
    ::setenv("FAKE_NVML_MODE", "ok", 1);
    ClientSession session(sessionOptionsProbing(FAKE_NVML));
    DevicePage page(session);
    page.show();
    ASSERT_TRUE(QTest::qWaitFor([&] { return cards(page).size() == 2; }, kProbeWaitMs));

    ::setenv("FAKE_NVML_MODE", "init_fail", 1); // the driver went away
    auto *refresh = page.findChild<QPushButton *>(QStringLiteral("refreshButton"));
    refresh->click();
    EXPECT_FALSE(refresh->isEnabled()); // until the answer comes
    EXPECT_TRUE(cards(page).isEmpty());
    ASSERT_TRUE(QTest::qWaitFor([&] { return refresh->isEnabled(); }, kProbeWaitMs));
    EXPECT_TRUE(cards(page).isEmpty());
    EXPECT_NE(page.findChild<QLabel *>(QStringLiteral("noGpuLabel")), nullptr);
    const QLabel *warnings = page.findChild<QLabel *>(QStringLiteral("gpuWarnings"));
    EXPECT_TRUE(warnings->isVisible());
    EXPECT_TRUE(warnings->text().contains(QStringLiteral("Driver Not Loaded"))) << warnings->text().toStdString();
}

TEST_F(DevicePageTest, BenchmarkShowsProgressThenResults)
{
    DevicePage page(session());
    page.resize(900, 700);
    page.show();
    auto *button = page.findChild<QPushButton *>(QStringLiteral("benchmarkButton"));
    auto *progress = page.findChild<QProgressBar *>(QStringLiteral("benchmarkProgress"));
    auto *results = page.findChild<QTableWidget *>(QStringLiteral("benchmarkResults"));
    ASSERT_TRUE(button && progress && results);
    EXPECT_FALSE(progress->isVisible());
    EXPECT_FALSE(results->isVisible());

    int lastPercent = -1;
    QObject::connect(&session(), &ClientSession::benchmarkProgress, &page, [&](int percent) { lastPercent = percent; });
    button->click();
    EXPECT_TRUE(session().benchmarkRunning());
    EXPECT_FALSE(button->isEnabled());
    EXPECT_TRUE(progress->isVisible());

    ASSERT_TRUE(QTest::qWaitFor([&] { return !session().benchmarkRunning(); }, kBenchmarkWaitMs));
    EXPECT_GE(lastPercent, 0) << "no progress was reported";
    EXPECT_TRUE(button->isEnabled());
    EXPECT_FALSE(progress->isVisible());
    EXPECT_FALSE(page.findChild<QLabel *>(QStringLiteral("benchmarkError"))->isVisible());
    ASSERT_TRUE(results->isVisible());
    ASSERT_GE(results->rowCount(), 3);
    EXPECT_EQ(results->columnCount(), 2);
    bool matrixProduct = false;
    for (int row = 0; row < results->rowCount(); ++row) {
        EXPECT_FALSE(results->item(row, 1)->text().isEmpty());
        matrixProduct = matrixProduct || results->item(row, 0)->text().startsWith(QStringLiteral("Matrix product"));
    }
    EXPECT_TRUE(matrixProduct);
}

TEST_F(DevicePageTest, BenchmarkErrorIsShownInWords)
{
    ClientSession::Options options = sessionOptions();
    options.worker.device = "quantum";
    ClientSession session(std::move(options));
    DevicePage page(session);
    page.show();
    page.findChild<QPushButton *>(QStringLiteral("benchmarkButton"))->click();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !session.benchmarkRunning(); }, kBenchmarkWaitMs));
    const QLabel *error = page.findChild<QLabel *>(QStringLiteral("benchmarkError"));
    EXPECT_TRUE(error->isVisible());
    EXPECT_TRUE(error->text().startsWith(QStringLiteral("The benchmark failed: "))) << error->text().toStdString();
    EXPECT_TRUE(error->text().contains(QStringLiteral("quantum")));
    EXPECT_FALSE(page.findChild<QTableWidget *>(QStringLiteral("benchmarkResults"))->isVisible());
    EXPECT_TRUE(page.findChild<QPushButton *>(QStringLiteral("benchmarkButton"))->isEnabled());
}

} // namespace
} // namespace swarmtrain

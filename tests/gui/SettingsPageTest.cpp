#include "SettingsPage.h"

#include "GuiTest.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QTimeEdit>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace swarmtrain {
namespace {

constexpr int kProbeWaitMs = 20000;

GpuInfo makeGpu(const char *vendor, const char *name, const char *uuid, int gib, bool usable)
{
    GpuInfo gpu;
    gpu.vendor = vendor;
    gpu.name = name;
    gpu.uuid = uuid;
    gpu.memoryTotalBytes = std::uint64_t(gib) << 30;
    gpu.usable = usable;
    gpu.unusable = usable ? GpuInfo::Unusable::No : GpuInfo::Unusable::NotNvidia;
    if (!usable)
        gpu.unusableReason = std::string(name) + " found, but this build of SwarmTrain trains on NVIDIA GPUs only";
    return gpu;
}

// A probe's answer on a PC whose LibTorch has CUDA: two NVIDIA GPUs it trains on and an AMD one
// it cannot. A real probe cannot say so here (this LibTorch has no CUDA), so the tests emit it.
GpuReport pcWithCuda()
{
    GpuReport report;
    report.gpus = {makeGpu("nvidia", "NVIDIA GeForce RTX 4090", "GPU-a", 24, true),
                   makeGpu("nvidia", "NVIDIA GeForce RTX 3060", "GPU-b", 12, true),
                   makeGpu("amd", "AMD Radeon RX 7900 XTX", "GPU-c", 24, false)};
    return report;
}

class SettingsPageTest : public test::GuiTest {
protected:
    // The page of session() with `report` as the probe's answer, given before the page is shown
    // so that it asks for no probe of its own (whose answer would come later and replace it).
    std::unique_ptr<SettingsPage> pageWithGpus(const GpuReport &report)
    {
        auto page = std::make_unique<SettingsPage>(session());
        Q_EMIT session().gpusProbed(report);
        page->show();
        return page;
    }

    static QList<QCheckBox *> gpuChoices(const QWidget &page)
    {
        return page.findChildren<QCheckBox *>(QStringLiteral("gpuChoice"));
    }

    static QCheckBox *gpuChoice(const QWidget &page, const char *uuid)
    {
        for (QCheckBox *box : gpuChoices(page))
            if (box->property("uuid").toString() == QLatin1StringView(uuid))
                return box;
        ADD_FAILURE() << "no checkbox for " << uuid;
        return nullptr;
    }

    // The uuids of the GPUs ticked, in the page's order.
    static QStringList ticked(const QWidget &page)
    {
        QStringList uuids;
        for (const QCheckBox *box : gpuChoices(page))
            if (box->isChecked())
                uuids.append(box->property("uuid").toString());
        return uuids;
    }

    // A key as another process would read it from the same file.
    QVariant inFile(const char *key)
    {
        settings().sync();
        QSettings fresh(settings().fileName(), QSettings::IniFormat);
        return fresh.value(QLatin1StringView(key));
    }

    template <typename T>
    T *find(const QWidget &page, const char *name)
    {
        T *widget = page.findChild<T *>(QLatin1StringView(name));
        EXPECT_NE(widget, nullptr) << name;
        return widget;
    }

    // What another process would read from the same file.
    Preferences fromFile()
    {
        settings().sync();
        QSettings fresh(settings().fileName(), QSettings::IniFormat);
        return loadPreferences(fresh);
    }

    static QStringList items(const QListWidget &list)
    {
        QStringList names;
        for (int row = 0; row < list.count(); ++row)
            names.append(list.item(row)->text());
        return names;
    }

private:
    test::EnglishFigures m_english; // "24.0 GiB"; also forgets FAKE_NVML_MODE
};

TEST_F(SettingsPageTest, ShowsThePreferencesItLoads)
{
    Preferences p;
    p.idleMinutes = 25;
    p.pauseOnBattery = false;
    p.exclusiveApps = {QStringLiteral("eldenring.exe"), QStringLiteral("steam")};
    p.maxGpuUtilization = 40;
    p.maxGpuMemoryMiB = 8192;
    p.gpuTemperatureLimit = 77;
    p.scheduleEnabled = true;
    p.scheduleStart = QTime(21, 45);
    p.scheduleEnd = QTime(7, 30);
    p.startAtLogin = true;
    p.language = QStringLiteral("ja");
    p.diskLimitGiB = 123;
    savePreferences(settings(), p);

    SettingsPage page(session());
    page.show();
    EXPECT_EQ(find<QSpinBox>(page, "idleMinutes")->value(), 25);
    EXPECT_FALSE(find<QCheckBox>(page, "pauseOnBattery")->isChecked());
    EXPECT_EQ(items(*find<QListWidget>(page, "exclusiveApps")), p.exclusiveApps);
    EXPECT_EQ(find<QSpinBox>(page, "maxGpuUtilization")->value(), 40);
    EXPECT_EQ(find<QSlider>(page, "maxGpuUtilizationSlider")->value(), 40);
    EXPECT_EQ(find<QSpinBox>(page, "maxGpuMemory")->value(), 8192);
    EXPECT_EQ(find<QSpinBox>(page, "gpuTemperatureLimit")->value(), 77);
    EXPECT_TRUE(find<QCheckBox>(page, "scheduleEnabled")->isChecked());
    EXPECT_EQ(find<QTimeEdit>(page, "scheduleStart")->time(), QTime(21, 45));
    EXPECT_EQ(find<QTimeEdit>(page, "scheduleEnd")->time(), QTime(7, 30));
    EXPECT_TRUE(find<QTimeEdit>(page, "scheduleStart")->isEnabled());
    EXPECT_TRUE(find<QCheckBox>(page, "startAtLogin")->isChecked());
    EXPECT_EQ(find<QComboBox>(page, "language")->currentData().toString(), QStringLiteral("ja"));
    EXPECT_EQ(find<QComboBox>(page, "language")->currentText(), QStringLiteral("日本語"));
    EXPECT_EQ(find<QSpinBox>(page, "diskLimit")->value(), 123);
    // Loading must not have written anything back.
    EXPECT_EQ(session().preferences(), p);
}

TEST_F(SettingsPageTest, EditsApplyAtOnceAndReachTheSettingsFile)
{
    SettingsPage page(session());
    page.show();
    ASSERT_EQ(session().preferences(), Preferences{});

    find<QSpinBox>(page, "idleMinutes")->setValue(0);
    find<QCheckBox>(page, "pauseOnBattery")->setChecked(false);
    find<QSlider>(page, "maxGpuUtilizationSlider")->setValue(60);
    find<QSpinBox>(page, "maxGpuMemory")->setValue(4096);
    find<QSpinBox>(page, "gpuTemperatureLimit")->setValue(70);
    find<QCheckBox>(page, "scheduleEnabled")->setChecked(true);
    find<QTimeEdit>(page, "scheduleStart")->setTime(QTime(1, 0));
    find<QTimeEdit>(page, "scheduleEnd")->setTime(QTime(9, 0));
    find<QCheckBox>(page, "startAtLogin")->setChecked(true);
    find<QSpinBox>(page, "diskLimit")->setValue(250);

    Preferences expected;
    expected.idleMinutes = 0;
    expected.pauseOnBattery = false;
    expected.maxGpuUtilization = 60;
    expected.maxGpuMemoryMiB = 4096;
    expected.gpuTemperatureLimit = 70;
    expected.scheduleEnabled = true;
    expected.scheduleStart = QTime(1, 0);
    expected.scheduleEnd = QTime(9, 0);
    expected.startAtLogin = true;
    expected.diskLimitGiB = 250;
    EXPECT_EQ(find<QSpinBox>(page, "maxGpuUtilization")->value(), 60); // the slider moves the spin box
    EXPECT_EQ(session().preferences(), expected);
    EXPECT_EQ(fromFile(), expected);
    // The throttle follows at once too.
    EXPECT_DOUBLE_EQ(session().throttle().prefs().maxDuty, 0.6);
    EXPECT_EQ(session().throttle().prefs().scheduleStartMinute, std::optional<int>(60));

    // A new session on the same file (the app's next start) shows the same on a new page.
    destroySession();
    QSettings again(settings().fileName(), QSettings::IniFormat);
    ClientSession::Options options = sessionOptions();
    options.settings = &again;
    ClientSession next(std::move(options));
    EXPECT_EQ(next.preferences(), expected);
    SettingsPage nextPage(next);
    nextPage.show();
    EXPECT_EQ(find<QSpinBox>(nextPage, "maxGpuMemory")->value(), 4096);
    EXPECT_EQ(find<QTimeEdit>(nextPage, "scheduleEnd")->time(), QTime(9, 0));
}

TEST_F(SettingsPageTest, ExclusiveAppsAreAddedAndRemoved)
{
    SettingsPage page(session());
    page.show();
    auto *name = find<QLineEdit>(page, "appName");
    auto *add = find<QPushButton>(page, "addAppButton");
    auto *remove = find<QPushButton>(page, "removeAppButton");
    auto *list = find<QListWidget>(page, "exclusiveApps");
    EXPECT_FALSE(add->isEnabled());

    name->setText(QStringLiteral("  game.exe "));
    EXPECT_TRUE(add->isEnabled());
    add->click();
    name->setText(QStringLiteral("steam"));
    add->click();
    name->setText(QStringLiteral("GAME.EXE")); // already there (names match case-insensitively)
    add->click();
    EXPECT_TRUE(name->text().isEmpty());
    EXPECT_EQ(session().preferences().exclusiveApps, (QStringList{QStringLiteral("game.exe"), QStringLiteral("steam")}));
    EXPECT_EQ(fromFile().exclusiveApps, session().preferences().exclusiveApps);

    list->clearSelection();
    EXPECT_FALSE(remove->isEnabled());
    list->item(0)->setSelected(true);
    EXPECT_TRUE(remove->isEnabled());
    remove->click();
    EXPECT_EQ(items(*list), QStringList{QStringLiteral("steam")});
    EXPECT_EQ(session().preferences().exclusiveApps, QStringList{QStringLiteral("steam")});

    list->item(0)->setText(QStringLiteral("eldenring.exe")); // edited in place
    EXPECT_EQ(session().preferences().exclusiveApps, QStringList{QStringLiteral("eldenring.exe")});
    list->item(0)->setText(QStringLiteral("  ")); // edited down to nothing: gone
    EXPECT_EQ(list->count(), 0);
    EXPECT_TRUE(session().preferences().exclusiveApps.isEmpty());
}

TEST_F(SettingsPageTest, LanguageComboSetsTheCode)
{
    SettingsPage page(session());
    page.show();
    auto *language = find<QComboBox>(page, "language");
    EXPECT_EQ(language->currentIndex(), 0); // follows the system
    const QStringList codes = {QStringLiteral("en"), QStringLiteral("de"), QStringLiteral("es"), QStringLiteral("fr"),
                               QStringLiteral("zh_CN"), QStringLiteral("ja"), QStringLiteral("pt_BR")};
    for (const QString &code : codes)
        EXPECT_GE(language->findData(code), 1) << code.toStdString();

    language->setCurrentIndex(language->findText(QStringLiteral("Deutsch")));
    EXPECT_EQ(session().preferences().language, QStringLiteral("de"));
    EXPECT_EQ(fromFile().language, QStringLiteral("de"));
    language->setCurrentIndex(language->findText(QStringLiteral("简体中文")));
    EXPECT_EQ(session().preferences().language, QStringLiteral("zh_CN"));
    language->setCurrentIndex(0);
    EXPECT_EQ(session().preferences().language, QString());
}

TEST_F(SettingsPageTest, ReloadsFromTheSessionWhenShown)
{
    SettingsPage page(session());
    page.show();
    page.hide();
    Preferences p = session().preferences();
    p.idleMinutes = 90;
    p.trayNoticeShown = true; // changed elsewhere in the app; the page must keep it
    session().setPreferences(p);
    page.show();
    EXPECT_EQ(find<QSpinBox>(page, "idleMinutes")->value(), 90);
    find<QSpinBox>(page, "gpuTemperatureLimit")->setValue(60);
    EXPECT_TRUE(session().preferences().trayNoticeShown);
    EXPECT_EQ(session().preferences().idleMinutes, 90);
    EXPECT_EQ(session().preferences().gpuTemperatureLimit, 60);
}

TEST_F(SettingsPageTest, TheDisplayNameIsCheckedByTheSwarmsRuleAndSavedWhenItPasses)
{
    SettingsPage page(session());
    page.show();
    auto *name = find<QLineEdit>(page, "displayName");
    auto *why = find<QLabel>(page, "displayNameError");
    ASSERT_TRUE(name && why);
    EXPECT_TRUE(name->text().isEmpty());
    EXPECT_FALSE(why->isVisible());

    name->setText(QStringLiteral("  Ada's PC "));
    QTest::keyClick(name, Qt::Key_Return);
    EXPECT_FALSE(why->isVisible());
    EXPECT_EQ(session().preferences().displayName, QStringLiteral("Ada's PC")) << "trimmed";
    EXPECT_EQ(fromFile().displayName, QStringLiteral("Ada's PC"));

    // Each refusal says why, in words, and leaves the saved name as it was.
    const QString refused[] = {QString(33, QLatin1Char('x')), QStringLiteral("Ada‮gnp"), QStringLiteral("   "),
                               QStringLiteral("a	b"), QStringLiteral("A​da")};
    QStringList reasons;
    for (const QString &text : refused) {
        name->setText(text);
        QTest::keyClick(name, Qt::Key_Return);
        EXPECT_TRUE(why->isVisible()) << text.toStdString();
        EXPECT_FALSE(why->text().isEmpty());
        reasons.append(why->text());
        EXPECT_EQ(session().preferences().displayName, QStringLiteral("Ada's PC")) << text.toStdString();
    }
    EXPECT_TRUE(reasons.first().contains(QStringLiteral("32"))) << reasons.first().toStdString();
    reasons.removeDuplicates();
    EXPECT_EQ(reasons.size(), 5) << "each fault has its own reason";

    name->clear(); // no name
    QTest::keyClick(name, Qt::Key_Return);
    EXPECT_FALSE(why->isVisible());
    EXPECT_EQ(session().preferences().displayName, QString());

    // A name edited by hand in the settings file into one the swarm would refuse is none.
    settings().setValue(QStringLiteral("swarm/displayName"), QStringLiteral("Ada‮"));
    EXPECT_EQ(loadPreferences(settings()).displayName, QString());
}

TEST_F(SettingsPageTest, ListsTheGpusTheProbeFindsAndWhyOneCannotTrain)
{
    ::setenv("FAKE_NVML_MODE", "ok", 1);
    ClientSession session(sessionOptionsProbing(FAKE_NVML));
    SettingsPage page(session);
    std::optional<GpuReport> probed;
    QObject::connect(&session, &ClientSession::gpusProbed, &page, [&](const GpuReport &report) { probed = report; });
    page.show(); // probes when first shown
    auto *status = find<QLabel>(page, "gpuChoiceStatus");
    ASSERT_TRUE(status);
    EXPECT_TRUE(status->isVisible());
    EXPECT_EQ(status->text(), QStringLiteral("Looking for GPUs…"));
    EXPECT_TRUE(gpuChoices(page).isEmpty());

    ASSERT_TRUE(QTest::qWaitFor([&] { return gpuChoices(page).size() == 2; }, kProbeWaitMs));
    ASSERT_TRUE(probed);
    QCheckBox *first = gpuChoice(page, "GPU-fake-0");
    QCheckBox *second = gpuChoice(page, "GPU-fake-1");
    ASSERT_TRUE(first && second);
    EXPECT_EQ(first->text(), QStringLiteral("NVIDIA GeForce RTX 3080, 10.0 GiB"));
    EXPECT_EQ(second->text(), QStringLiteral("NVIDIA GeForce RTX 4090, 24.0 GiB"));
    EXPECT_FALSE(first->isEnabled()) << "Automatic: nothing to tick";
    EXPECT_FALSE(second->isEnabled());
    EXPECT_FALSE(status->isVisible());

    // Whether each box may be ticked is the probe's word. This LibTorch has no CUDA, so here the
    // probe marks both GPUs unusable: "Only…" ticks nothing and the page says so.
    find<QComboBox>(page, "gpuUse")->setCurrentIndex(1);
    bool anyUsable = false;
    for (const GpuInfo &gpu : probed->gpus) {
        const QCheckBox *box = gpuChoice(page, gpu.uuid.c_str());
        ASSERT_TRUE(box);
        EXPECT_EQ(box->isEnabled(), gpu.usable) << gpu.uuid;
        EXPECT_EQ(box->isChecked(), gpu.usable) << gpu.uuid;
        if (!gpu.usable) {
            EXPECT_FALSE(gpu.unusableReason.empty());
            EXPECT_EQ(box->toolTip(), QString::fromStdString(gpu.unusableReason));
        }
        anyUsable = anyUsable || gpu.usable;
    }
    EXPECT_EQ(status->isVisible(), !anyUsable);
    if (!anyUsable) {
        EXPECT_EQ(status->text(), QStringLiteral("None of the GPUs found can train with this build."));
    }
    EXPECT_EQ(session.preferences().gpuUse, GpuUse::Chosen);
}

TEST_F(SettingsPageTest, SaysTheProcessorTrainsWhenNoGpuIsFound)
{
    ClientSession session(sessionOptionsProbing("/nonexistent/libnvidia-ml.so.1"));
    SettingsPage page(session);
    page.show();
    auto *status = find<QLabel>(page, "gpuChoiceStatus");
    ASSERT_TRUE(status);
    ASSERT_TRUE(QTest::qWaitFor([&] { return status->text() != QStringLiteral("Looking for GPUs…"); }, kProbeWaitMs));
    EXPECT_EQ(status->text(), QStringLiteral("No GPU found: the processor trains."));
    EXPECT_TRUE(status->isVisible());
    EXPECT_TRUE(gpuChoices(page).isEmpty());
}

TEST_F(SettingsPageTest, OnlyTheTickedGpusTicksEveryUsableOneAndUntickingRemovesOnlyIt)
{
    const std::unique_ptr<SettingsPage> page = pageWithGpus(pcWithCuda());
    auto *use = find<QComboBox>(*page, "gpuUse");
    ASSERT_TRUE(use);
    ASSERT_EQ(use->count(), 3);
    EXPECT_EQ(use->itemText(0), QStringLiteral("Automatic: the best GPU found, else the processor"));
    EXPECT_EQ(use->itemText(1), QStringLiteral("Only the GPUs ticked below"));
    EXPECT_EQ(use->itemText(2), QStringLiteral("None: train on the processor only"));
    EXPECT_EQ(use->currentIndex(), 0);
    ASSERT_EQ(gpuChoices(*page).size(), 3);
    EXPECT_EQ(gpuChoice(*page, "GPU-a")->text(), QStringLiteral("NVIDIA GeForce RTX 4090, 24.0 GiB"));
    EXPECT_EQ(gpuChoice(*page, "GPU-b")->text(), QStringLiteral("NVIDIA GeForce RTX 3060, 12.0 GiB"));
    for (const QCheckBox *box : gpuChoices(*page))
        EXPECT_FALSE(box->isEnabled()) << box->text().toStdString();
    EXPECT_TRUE(ticked(*page).isEmpty());

    use->setCurrentIndex(1);
    const QStringList usable = {QStringLiteral("GPU-a"), QStringLiteral("GPU-b")};
    EXPECT_EQ(ticked(*page), usable);
    EXPECT_TRUE(gpuChoice(*page, "GPU-a")->isEnabled());
    EXPECT_TRUE(gpuChoice(*page, "GPU-b")->isEnabled());
    QCheckBox *amd = gpuChoice(*page, "GPU-c");
    EXPECT_FALSE(amd->isEnabled());
    EXPECT_FALSE(amd->isChecked());
    EXPECT_EQ(amd->toolTip(), QStringLiteral("AMD Radeon RX 7900 XTX found, but this build of SwarmTrain trains on NVIDIA GPUs only"));
    EXPECT_FALSE(find<QLabel>(*page, "gpuChoiceStatus")->isVisible());
    EXPECT_EQ(session().preferences().gpuUse, GpuUse::Chosen);
    EXPECT_EQ(session().preferences().gpuUuids, usable);
    EXPECT_EQ(inFile("device/gpuUse").toString(), QStringLiteral("chosen"));
    EXPECT_EQ(inFile("device/gpuUuids").toStringList(), usable);

    gpuChoice(*page, "GPU-b")->click();
    EXPECT_EQ(ticked(*page), QStringList{QStringLiteral("GPU-a")});
    EXPECT_EQ(session().preferences().gpuUuids, QStringList{QStringLiteral("GPU-a")});
    EXPECT_EQ(inFile("device/gpuUuids").toStringList(), QStringList{QStringLiteral("GPU-a")});
    EXPECT_EQ(fromFile(), session().preferences());
}

TEST_F(SettingsPageTest, NoneSavesNoneAndDisablesTheBoxesKeepingTheTicks)
{
    Preferences p;
    p.gpuUse = GpuUse::Chosen;
    p.gpuUuids = {QStringLiteral("GPU-b")};
    savePreferences(settings(), p);
    const std::unique_ptr<SettingsPage> page = pageWithGpus(pcWithCuda());
    auto *use = find<QComboBox>(*page, "gpuUse");
    EXPECT_TRUE(gpuChoice(*page, "GPU-a")->isEnabled());

    use->setCurrentIndex(2);
    EXPECT_EQ(session().preferences().gpuUse, GpuUse::None);
    EXPECT_EQ(inFile("device/gpuUse").toString(), QStringLiteral("none"));
    for (const QCheckBox *box : gpuChoices(*page))
        EXPECT_FALSE(box->isEnabled()) << box->text().toStdString();
    EXPECT_EQ(session().preferences().gpuUuids, p.gpuUuids) << "remembered for the next time";
    EXPECT_EQ(ticked(*page), p.gpuUuids);

    // Back to "Only…" with a GPU ticked: the choice is as it was, not every usable GPU.
    use->setCurrentIndex(1);
    EXPECT_EQ(session().preferences().gpuUuids, p.gpuUuids);
    EXPECT_EQ(ticked(*page), p.gpuUuids);
    EXPECT_TRUE(gpuChoice(*page, "GPU-a")->isEnabled());
    EXPECT_EQ(inFile("device/gpuUse").toString(), QStringLiteral("chosen"));
}

TEST_F(SettingsPageTest, AChosenGpuTheProbeDoesNotReportNowStaysChosen)
{
    Preferences p;
    p.gpuUse = GpuUse::Chosen;
    p.gpuUuids = {QStringLiteral("GPU-unplugged"), QStringLiteral("GPU-a")};
    savePreferences(settings(), p);
    const std::unique_ptr<SettingsPage> page = pageWithGpus(pcWithCuda());
    EXPECT_EQ(ticked(*page), QStringList{QStringLiteral("GPU-a")});

    gpuChoice(*page, "GPU-b")->click();
    EXPECT_EQ(session().preferences().gpuUuids,
              (QStringList{QStringLiteral("GPU-unplugged"), QStringLiteral("GPU-a"), QStringLiteral("GPU-b")}));
    gpuChoice(*page, "GPU-a")->click();
    const QStringList expected = {QStringLiteral("GPU-unplugged"), QStringLiteral("GPU-b")};
    EXPECT_EQ(session().preferences().gpuUuids, expected);
    EXPECT_EQ(inFile("device/gpuUuids").toStringList(), expected);
    find<QComboBox>(*page, "gpuUse")->setCurrentIndex(2);
    find<QComboBox>(*page, "gpuUse")->setCurrentIndex(1);
    EXPECT_EQ(session().preferences().gpuUuids, expected);
}

TEST_F(SettingsPageTest, ShowsTheChosenGpusItLoads)
{
    Preferences p;
    p.gpuUse = GpuUse::Chosen;
    p.gpuUuids = {QStringLiteral("GPU-b"), QStringLiteral("GPU-c")}; // GPU-c cannot train now
    savePreferences(settings(), p);
    const std::unique_ptr<SettingsPage> page = pageWithGpus(pcWithCuda());
    EXPECT_EQ(find<QComboBox>(*page, "gpuUse")->currentIndex(), 1);
    EXPECT_EQ(ticked(*page), QStringList{QStringLiteral("GPU-b")});
    EXPECT_FALSE(gpuChoice(*page, "GPU-c")->isEnabled());
    EXPECT_EQ(session().preferences(), p) << "loading must not write anything back";

    // Changed elsewhere (swarmtrain-cli, another window): shown when the page is shown again.
    page->hide();
    p.gpuUuids = {QStringLiteral("GPU-a")};
    session().setPreferences(p);
    page->show();
    EXPECT_EQ(ticked(*page), QStringList{QStringLiteral("GPU-a")});
    p.gpuUse = GpuUse::Automatic;
    page->hide();
    session().setPreferences(p);
    page->show();
    EXPECT_EQ(find<QComboBox>(*page, "gpuUse")->currentIndex(), 0);
    EXPECT_FALSE(gpuChoice(*page, "GPU-a")->isEnabled());
    EXPECT_EQ(session().preferences(), p);
}

TEST_F(SettingsPageTest, OnlyWithNoUsableGpuTicksNothingAndSaysSo)
{
    GpuReport report;
    report.gpus = {makeGpu("amd", "AMD Radeon RX 6800", "GPU-amd", 16, false)};
    const std::unique_ptr<SettingsPage> page = pageWithGpus(report);
    auto *status = find<QLabel>(*page, "gpuChoiceStatus");
    EXPECT_FALSE(status->isVisible());

    find<QComboBox>(*page, "gpuUse")->setCurrentIndex(1);
    EXPECT_EQ(session().preferences().gpuUse, GpuUse::Chosen);
    EXPECT_TRUE(session().preferences().gpuUuids.isEmpty());
    EXPECT_TRUE(ticked(*page).isEmpty());
    QCheckBox *box = gpuChoice(*page, "GPU-amd");
    EXPECT_FALSE(box->isEnabled());
    EXPECT_EQ(box->toolTip(), QStringLiteral("AMD Radeon RX 6800 found, but this build of SwarmTrain trains on NVIDIA GPUs only"));
    EXPECT_TRUE(status->isVisible());
    EXPECT_EQ(status->text(), QStringLiteral("None of the GPUs found can train with this build."));
}

TEST_F(SettingsPageTest, OnlyChosenBeforeTheProbeAnswersTicksTheUsableGpusWhenItDoes)
{
    SettingsPage page(session()); // not shown: no probe runs, the test gives the answer
    EXPECT_EQ(find<QLabel>(page, "gpuChoiceStatus")->text(), QStringLiteral("Looking for GPUs…"));
    find<QComboBox>(page, "gpuUse")->setCurrentIndex(1);
    EXPECT_EQ(session().preferences().gpuUse, GpuUse::Chosen);
    EXPECT_TRUE(session().preferences().gpuUuids.isEmpty());

    Q_EMIT session().gpusProbed(pcWithCuda());
    const QStringList usable = {QStringLiteral("GPU-a"), QStringLiteral("GPU-b")};
    EXPECT_EQ(ticked(page), usable);
    EXPECT_EQ(session().preferences().gpuUuids, usable);
    EXPECT_EQ(inFile("device/gpuUuids").toStringList(), usable);
}

TEST_F(SettingsPageTest, AChoiceLoadedEmptyIsNotFilledInWithoutThePerson)
{
    Preferences p;
    p.gpuUse = GpuUse::Chosen; // with no GPU: chosen so elsewhere, not on this page
    savePreferences(settings(), p);
    const std::unique_ptr<SettingsPage> page = pageWithGpus(pcWithCuda());
    EXPECT_TRUE(ticked(*page).isEmpty());
    EXPECT_EQ(session().preferences(), p);
}

} // namespace
} // namespace swarmtrain

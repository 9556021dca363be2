#include "SettingsPage.h"

#include "GuiTest.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QTimeEdit>

#include <gtest/gtest.h>

namespace swarmtrain {
namespace {

class SettingsPageTest : public test::GuiTest {
protected:
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

} // namespace
} // namespace swarmtrain

#include "Autostart.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

TEST(XdgAutostartTest, EnableWritesADesktopEntryAndDisableRemovesIt)
{
    test::TempDir dir;
    XdgAutostart autostart(dir.path() / "config");
    EXPECT_FALSE(autostart.isEnabled());

    ASSERT_TRUE(autostart.enable("/opt/Swarm Train/bin/swarmtrain", "--minimized").ok());
    EXPECT_TRUE(autostart.isEnabled());
    const std::string entry = test::readWholeFile(autostart.file());
    EXPECT_EQ(entry.rfind("[Desktop Entry]\n", 0), 0u);
    EXPECT_NE(entry.find("\nExec=\"/opt/Swarm Train/bin/swarmtrain\" --minimized\n"), std::string::npos) << entry;
    EXPECT_NE(entry.find("\nType=Application\n"), std::string::npos);

    ASSERT_TRUE(autostart.disable().ok());
    EXPECT_FALSE(autostart.isEnabled());
    EXPECT_FALSE(std::filesystem::exists(autostart.file()));
    EXPECT_TRUE(autostart.disable().ok()) << "disabling twice is fine";
}

TEST(XdgAutostartTest, AnEntryTheDesktopTurnedOffIsNotEnabled)
{
    test::TempDir dir;
    XdgAutostart autostart(dir.path());
    dir.write("autostart/swarmtrain.desktop", "[Desktop Entry]\nType=Application\nExec=swarmtrain\nHidden=true\n");
    EXPECT_FALSE(autostart.isEnabled());
}

TEST(XdgAutostartTest, SpecialCharactersInThePathAreEscaped)
{
    test::TempDir dir;
    XdgAutostart autostart(dir.path());
    ASSERT_TRUE(autostart.enable("/home/a\"b/$HOME/swarmtrain", "").ok());
    const std::string entry = test::readWholeFile(autostart.file());
    EXPECT_NE(entry.find("\nExec=\"/home/a\\\"b/\\$HOME/swarmtrain\"\n"), std::string::npos) << entry;
}

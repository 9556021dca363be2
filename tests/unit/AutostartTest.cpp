#include "MacLaunchAgentPlist.h"
#include "XdgAutostart.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

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

namespace {

// The <string> items of a LaunchAgent's ProgramArguments, in order.
std::vector<std::string> programArguments(const std::string &plist)
{
    std::vector<std::string> arguments;
    const std::size_t begin = plist.find("<key>ProgramArguments</key>");
    const std::size_t end = plist.find("</array>", begin);
    for (std::size_t at = plist.find("<string>", begin); at < end; at = plist.find("<string>", at)) {
        at += std::string_view("<string>").size();
        arguments.push_back(plist.substr(at, plist.find("</string>", at) - at));
    }
    return arguments;
}

} // namespace

TEST(MacAutostartPlistTest, StartsTheProgramAtLoginUnderItsLabel)
{
    EXPECT_EQ(launchAgentPlist("org.swarmtrain.client", "/Applications/SwarmTrain.app/Contents/MacOS/swarmtrain",
                               "--minimized"),
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
              "<plist version=\"1.0\">\n"
              "<dict>\n"
              "\t<key>Label</key>\n"
              "\t<string>org.swarmtrain.client</string>\n"
              "\t<key>ProgramArguments</key>\n"
              "\t<array>\n"
              "\t\t<string>/Applications/SwarmTrain.app/Contents/MacOS/swarmtrain</string>\n"
              "\t\t<string>--minimized</string>\n"
              "\t</array>\n"
              "\t<key>RunAtLoad</key>\n"
              "\t<true/>\n"
              "\t<key>LimitLoadToSessionType</key>\n"
              "\t<string>Aqua</string>\n"
              "</dict>\n"
              "</plist>\n");
}

TEST(MacAutostartPlistTest, PathsWithSpacesAndXmlCharactersAreEscaped)
{
    const std::string plist =
        launchAgentPlist("org.swarmtrain.client", "/Users/zoë/Apps/Swarm & Train <beta> \"'/swarmtrain", "");
    const std::vector<std::string> expected = {"/Users/zoë/Apps/Swarm &amp; Train &lt;beta&gt; &quot;&apos;/swarmtrain"};
    EXPECT_EQ(programArguments(plist), expected) << plist;
    EXPECT_EQ(plist.find("Swarm & Train"), std::string::npos);
    EXPECT_EQ(plist.find("<beta>"), std::string::npos);
}

TEST(MacAutostartPlistTest, ArgumentsAreSplitAsAShellWouldSplitThem)
{
    const std::string plist = launchAgentPlist(
        "org.swarmtrain.client", "/opt/swarmtrain",
        "--swarm \"Zoë's LAN & co\"  --data '/Volumes/My Disk/a\"b'\tplain\\ word \"a\\\"q\\\\\" x''y");
    const std::vector<std::string> expected = {"/opt/swarmtrain",
                                               "--swarm",
                                               "Zoë&apos;s LAN &amp; co",
                                               "--data",
                                               "/Volumes/My Disk/a&quot;b",
                                               "plain word",
                                               "a&quot;q\\",
                                               "xy"};
    EXPECT_EQ(programArguments(plist), expected) << plist;
}

TEST(MacAutostartPlistTest, NoArgumentsIsTheProgramAlone)
{
    const std::vector<std::string> programOnly = {"/opt/swarmtrain"};
    EXPECT_EQ(programArguments(launchAgentPlist("l", "/opt/swarmtrain", "")), programOnly);
    EXPECT_EQ(programArguments(launchAgentPlist("l", "/opt/swarmtrain", "  \t ")), programOnly);
    const std::vector<std::string> emptyArgument = {"/opt/swarmtrain", ""};
    EXPECT_EQ(programArguments(launchAgentPlist("l", "/opt/swarmtrain", "\"\"")), emptyArgument)
        << "an empty quoted word is still a word";
}

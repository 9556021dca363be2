#include "WinAutostart.h"

#include "WinText.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

// WinAutostart on scratch keys under HKCU\Software\SwarmTrainTest, never the real Run key.
class WinAutostartTest : public ::testing::Test {
protected:
    void TearDown() override
    {
        RegDeleteTreeW(HKEY_CURRENT_USER, m_root.c_str());
        RegDeleteKeyW(HKEY_CURRENT_USER, L"Software\\SwarmTrainTest"); // only if no other run uses it
    }

    // The Run value as the shell reads it; nullopt when there is none.
    std::optional<std::wstring> runValue() const
    {
        wchar_t value[1024] = {};
        DWORD size = sizeof(value);
        if (RegGetValueW(HKEY_CURRENT_USER, m_runKey.c_str(), L"SwarmTrain", RRF_RT_REG_SZ, nullptr, value, &size) !=
            ERROR_SUCCESS)
            return std::nullopt;
        return std::wstring(value);
    }

    // What Task Manager's Startup tab writes: 0x02 enabled, 0x03 disabled, then a FILETIME.
    void setApproved(BYTE state) const
    {
        const BYTE value[12] = {state};
        ASSERT_EQ(RegSetKeyValueW(HKEY_CURRENT_USER, m_approvedKey.c_str(), L"SwarmTrain", REG_BINARY, value,
                                  sizeof(value)),
                  ERROR_SUCCESS);
    }

    bool approvedValueExists() const
    {
        return RegGetValueW(HKEY_CURRENT_USER, m_approvedKey.c_str(), L"SwarmTrain", RRF_RT_ANY, nullptr, nullptr,
                            nullptr) == ERROR_SUCCESS;
    }

    const std::wstring m_root = L"Software\\SwarmTrainTest\\" + std::to_wstring(GetCurrentProcessId());
    const std::wstring m_runKey = m_root + L"\\Run";
    const std::wstring m_approvedKey = m_root + L"\\StartupApproved\\Run";
    WinAutostart m_autostart{m_runKey, m_approvedKey};
};

} // namespace

TEST_F(WinAutostartTest, EnableWritesTheQuotedCommandLineAndDisableRemovesIt)
{
    EXPECT_FALSE(m_autostart.isEnabled());

    const Result<void> enabled = m_autostart.enable(L"C:\\Program Files\\SwarmTrain\\swarmtrain.exe", "--minimized");
    ASSERT_TRUE(enabled.ok()) << enabled.error().message;
    EXPECT_TRUE(m_autostart.isEnabled());
    EXPECT_EQ(runValue(), L"\"C:\\Program Files\\SwarmTrain\\swarmtrain.exe\" --minimized");

    ASSERT_TRUE(m_autostart.disable().ok());
    EXPECT_FALSE(m_autostart.isEnabled());
    EXPECT_EQ(runValue(), std::nullopt);
    EXPECT_TRUE(m_autostart.disable().ok()) << "disabling twice is fine";
}

TEST_F(WinAutostartTest, WithoutArgumentsTheCommandIsThePathAlone)
{
    ASSERT_TRUE(m_autostart.enable(L"D:\\Apps\\swarmtrain.exe", "").ok());
    EXPECT_EQ(runValue(), L"\"D:\\Apps\\swarmtrain.exe\"");
}

TEST_F(WinAutostartTest, NonAsciiPathsAndArgumentsSurvive)
{
    ASSERT_TRUE(m_autostart.enable(L"C:\\Users\\Zo\u00eb\\SwarmTrain \u6e2c\u8a66\\swarmtrain.exe",
                                   "--swarm \"Zo\u00eb's LAN\"")
                    .ok());
    EXPECT_EQ(runValue(), L"\"C:\\Users\\Zo\u00eb\\SwarmTrain \u6e2c\u8a66\\swarmtrain.exe\" --swarm \"Zo\u00eb's LAN\"");
}

TEST_F(WinAutostartTest, TurnedOffInTaskManagerIsNotEnabledUntilEnabledHereAgain)
{
    ASSERT_TRUE(m_autostart.enable(L"C:\\SwarmTrain\\swarmtrain.exe", "").ok());
    setApproved(0x03);
    EXPECT_FALSE(m_autostart.isEnabled());
    setApproved(0x02);
    EXPECT_TRUE(m_autostart.isEnabled());

    setApproved(0x03);
    ASSERT_TRUE(m_autostart.enable(L"C:\\SwarmTrain\\swarmtrain.exe", "").ok());
    EXPECT_TRUE(m_autostart.isEnabled());
    EXPECT_FALSE(approvedValueExists());

    setApproved(0x03);
    ASSERT_TRUE(m_autostart.disable().ok());
    EXPECT_FALSE(approvedValueExists()) << "nothing of SwarmTrain is left behind";
}

TEST_F(WinAutostartTest, AKeyThatCannotBeOpenedIsAnError)
{
    // A key name may not start with a backslash.
    WinAutostart broken(L"\\" + m_runKey, m_approvedKey);
    const Result<void> enabled = broken.enable(L"C:\\SwarmTrain\\swarmtrain.exe", "");
    ASSERT_FALSE(enabled.ok());
    EXPECT_NE(enabled.error().message.find("registry"), std::string::npos) << enabled.error().message;
}

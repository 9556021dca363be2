#include "WinProcessList.h"

#include "WinText.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

using namespace swarmtrain;

namespace {

bool listed(const std::string &name)
{
    const std::vector<std::string> names = WinProcessList().runningNames();
    return std::find(names.begin(), names.end(), name) != names.end();
}

// A copy of this test executable under a name no other process has (with a space and a
// non-ASCII letter, which must survive UTF-16 to UTF-8), running with
// --wait-for-end-of-input (TestMain.cpp) until finish() closes its standard input.
class ChildUnderItsOwnName {
public:
    ChildUnderItsOwnName()
    {
        wchar_t self[MAX_PATH] = {};
        GetModuleFileNameW(nullptr, self, MAX_PATH);
        m_name = "swarmtrain prøbe " + std::to_string(GetCurrentProcessId()) + ".exe";
        m_copy = std::filesystem::temp_directory_path() / fromUtf8(m_name);
        if (!CopyFileW(self, m_copy.c_str(), FALSE))
            return;

        SECURITY_ATTRIBUTES inheritable{sizeof(inheritable), nullptr, TRUE};
        HANDLE childInput = nullptr;
        if (!CreatePipe(&childInput, &m_input, &inheritable, 0))
            return;
        SetHandleInformation(m_input, HANDLE_FLAG_INHERIT, 0);
        STARTUPINFOW startup{};
        startup.cb = sizeof(startup);
        startup.dwFlags = STARTF_USESTDHANDLES;
        startup.hStdInput = childInput;
        std::wstring command = L"\"" + m_copy.wstring() + L"\" --wait-for-end-of-input";
        PROCESS_INFORMATION process{};
        if (CreateProcessW(m_copy.c_str(), command.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW, nullptr, nullptr,
                           &startup, &process)) {
            CloseHandle(process.hThread);
            m_process = process.hProcess;
        }
        CloseHandle(childInput);
    }

    ~ChildUnderItsOwnName()
    {
        if (m_process) {
            TerminateProcess(m_process, 1);
            WaitForSingleObject(m_process, INFINITE);
            CloseHandle(m_process);
        }
        if (m_input)
            CloseHandle(m_input);
        std::error_code ec;
        std::filesystem::remove(m_copy, ec);
    }

    bool started() const { return m_process != nullptr; }
    const std::string &name() const { return m_name; }

    // Lets the child see the end of its input and waits until it has exited.
    bool finish()
    {
        CloseHandle(m_input);
        m_input = nullptr;
        const bool exited = WaitForSingleObject(m_process, 60000) == WAIT_OBJECT_0;
        DWORD status = 1;
        GetExitCodeProcess(m_process, &status);
        CloseHandle(m_process);
        m_process = nullptr;
        return exited && status == 0;
    }

private:
    std::string m_name;
    std::filesystem::path m_copy;
    HANDLE m_input = nullptr;
    HANDLE m_process = nullptr;
};

} // namespace

TEST(WinProcessListTest, ARunningProgramIsListedByItsFileName)
{
    ChildUnderItsOwnName child;
    ASSERT_TRUE(child.started()) << "could not start a copy of the test executable: " << windowsErrorText(GetLastError());
    EXPECT_TRUE(listed(child.name())) << child.name();
    ASSERT_TRUE(child.finish());
    EXPECT_FALSE(listed(child.name())) << "a program that ended is no longer listed";
}

TEST(WinProcessListTest, NamesAreSortedAndEachOnce)
{
    const std::vector<std::string> names = WinProcessList().runningNames();
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "swarmtrain_platform_windows_tests.exe"), names.end());
}

#pragma once

#include "Result.h"

#include <filesystem>
#include <fstream>
#include <string>

namespace swarmtrain {

// The file-based autostart entries (an XDG .desktop file, a macOS LaunchAgent plist): written
// beside and renamed, so the desktop or launchd never reads half a file; the folder is made.
inline Result<void> writeAutostartFile(const std::filesystem::path &file, const std::string &text)
{
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
        return makeError("cannot create " + file.parent_path().string() + ": " + ec.message());
    const std::filesystem::path temporary = file.string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        if (!out)
            return makeError("cannot write " + temporary.string());
    }
    std::filesystem::rename(temporary, file, ec);
    if (ec)
        return makeError("cannot write " + file.string() + ": " + ec.message());
    return {};
}

// Removing an entry that is not there is fine.
inline Result<void> removeAutostartFile(const std::filesystem::path &file)
{
    std::error_code ec;
    std::filesystem::remove(file, ec);
    if (ec)
        return makeError("cannot remove " + file.string() + ": " + ec.message());
    return {};
}

} // namespace swarmtrain

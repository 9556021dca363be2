#pragma once

#include "Result.h"

#include <QString>

#include <filesystem>
#include <string>

namespace swarmtrain {

// The engine speaks std::string (UTF-8) and std::filesystem; Qt code shows QStrings.
inline QString toQString(const std::string &text) { return QString::fromStdString(text); }
inline QString toQString(const std::filesystem::path &path) { return QString::fromStdU16String(path.u16string()); }
inline QString toQString(const Error &error) { return QString::fromStdString(error.message); }

} // namespace swarmtrain

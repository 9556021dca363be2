#pragma once

#include <string>

namespace swarmtrain::test {

// What a CLI11 --help shows for `flag`: its line and, when the left column overflows, the
// description on the next one; "" when the flag is not listed.
inline std::string helpEntry(const std::string &help, const std::string &flag)
{
    const std::size_t at = help.find("\n  " + flag + " ");
    if (at == std::string::npos)
        return {};
    const std::size_t next = help.find("\n  -", at + 1);
    return help.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
}

} // namespace swarmtrain::test

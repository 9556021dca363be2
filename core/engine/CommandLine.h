#pragma once

#include "Result.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace swarmtrain {

// `--name value`, `--name=value` and bare `--switch` flags, checked against the known names.
class CommandLine {
public:
    static Result<CommandLine> parse(const std::vector<std::string> &args, const std::set<std::string> &valueFlags,
                                     const std::set<std::string> &switches);

    // Each reads the flag if given (leaving `out` alone otherwise) and reports nonsense.
    Result<void> readInt(const std::string &name, long long min, long long max, long long &out) const;
    Result<void> readDouble(const std::string &name, double min, double max, double &out) const;
    Result<void> readString(const std::string &name, std::string &out) const;
    bool isSet(const std::string &name) const { return m_switches.count(name) > 0; }

    template <typename Int>
    Result<void> read(const std::string &name, long long min, long long max, Int &out) const
    {
        long long value = out;
        Result<void> result = readInt(name, min, max, value);
        out = Int(value);
        return result;
    }

private:
    std::map<std::string, std::string> m_values;
    std::set<std::string> m_switches;
};

} // namespace swarmtrain

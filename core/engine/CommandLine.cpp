#include "CommandLine.h"

#include <charconv>
#include <cmath>

namespace swarmtrain {

Result<CommandLine> CommandLine::parse(const std::vector<std::string> &args, const std::set<std::string> &valueFlags,
                                       const std::set<std::string> &switches)
{
    CommandLine line;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        if (arg.rfind("--", 0) != 0)
            return makeError("unexpected argument '" + arg + "'");
        std::string name = arg.substr(2);
        std::string value;
        bool inlineValue = false;
        if (const std::size_t eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name.resize(eq);
            inlineValue = true;
        }
        if (switches.count(name)) {
            if (inlineValue)
                return makeError("--" + name + " takes no value");
            line.m_switches.insert(name);
            continue;
        }
        if (!valueFlags.count(name))
            return makeError("unknown option --" + name);
        if (!inlineValue) {
            if (i + 1 >= args.size())
                return makeError("--" + name + " needs a value");
            value = args[++i];
        }
        line.m_values[name] = value;
    }
    return line;
}

Result<void> CommandLine::readInt(const std::string &name, long long min, long long max, long long &out) const
{
    const auto it = m_values.find(name);
    if (it == m_values.end())
        return {};
    const std::string &text = it->second;
    long long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        return makeError("--" + name + " expects a whole number, got '" + text + "'");
    if (value < min || value > max) {
        return makeError("--" + name + " must be between " + std::to_string(min) + " and " + std::to_string(max)
                         + ", got " + text);
    }
    out = value;
    return {};
}

Result<void> CommandLine::readDouble(const std::string &name, double min, double max, double &out) const
{
    const auto it = m_values.find(name);
    if (it == m_values.end())
        return {};
    const std::string &text = it->second;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
        return makeError("--" + name + " expects a number, got '" + text + "'");
    if (value < min || value > max) {
        return makeError("--" + name + " must be between " + std::to_string(min) + " and " + std::to_string(max)
                         + ", got " + text);
    }
    out = value;
    return {};
}

Result<void> CommandLine::readString(const std::string &name, std::string &out) const
{
    const auto it = m_values.find(name);
    if (it == m_values.end())
        return {};
    if (it->second.empty())
        return makeError("--" + name + " must not be empty");
    out = it->second;
    return {};
}

} // namespace swarmtrain

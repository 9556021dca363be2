#include "CliFlags.h"

#include "TrainOptions.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace swarmtrain::flags {

namespace {

// Options as "--n-layer INT in [1, 1024]   transformer blocks (default: 4)". CLI11 2.1 writes
// "INT:INT in [1, 1024]=4" (the type, then each validator's description); ours describe the
// whole value, so the part after the first ':' replaces the type.
class HelpFormatter : public CLI::Formatter {
public:
    HelpFormatter() { column_width(40); }

    std::string make_option_opts(const CLI::Option *option) const override
    {
        if (isSwitch(*option))
            return {};
        std::string type = option->get_type_name();
        if (const std::size_t colon = type.find(':'); colon != std::string::npos)
            type = type.substr(colon + 1);
        return " " + type + (option->get_required() ? " (required)" : "");
    }

    std::string make_option_desc(const CLI::Option *option) const override
    {
        std::string description = option->get_description();
        if (!isSwitch(*option) && !option->get_default_str().empty())
            description += " (default: " + option->get_default_str() + ")";
        return description;
    }
};

std::string shortest(double value)
{
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

// CLI11 converts with strtoll(base 0) and strtold, which read "010" as octal and may round a
// decimal twice (to long double, then to double); the number validators hand it forms those
// read exactly: plain decimal digits, hex floats.
std::string exactForCli11(double value)
{
    char text[48];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, std::abs(value), std::chars_format::hex);
    return std::string(std::signbit(value) ? "-0x" : "0x") + std::string(text, ec == std::errc() ? end : text);
}

Error fromCli11(const CLI::App &app, const CLI::ParseError &error)
{
    const std::string message = error.what();
    if (dynamic_cast<const CLI::ValidationError *>(&error)) {
        // "--name: why"; a why from a shared parser (parseByteCount) already names the flag.
        const std::size_t colon = message.find(": ");
        if (colon == std::string::npos)
            return makeError(message);
        const std::string name = message.substr(0, colon);
        const std::string why = message.substr(colon + 2);
        return makeError(why.rfind(name, 0) == 0 ? why : name + " " + why);
    }
    if (dynamic_cast<const CLI::ArgumentMismatch *>(&error)) {
        // CLI11 2.1: "--name: 1 required TEXT missing" or "name was given a disallowed flag override".
        std::string name = message.substr(0, message.find_first_of(": "));
        if (name.rfind("--", 0) != 0)
            name = "--" + name;
        const bool switchWithValue = message.find("flag override") != std::string::npos;
        return makeError(name + (switchWithValue ? " takes no value" : " needs a value"));
    }
    if (dynamic_cast<const CLI::FileError *>(&error) && app.get_config_ptr())
        return makeError(app.get_config_ptr()->get_name() + ": " + message);
    return makeError(message);
}

} // namespace

void configure(CLI::App &app)
{
    app.formatter(std::make_shared<HelpFormatter>());
    app.set_help_flag("-h,--help", "print this help and exit");
    app.allow_extras();
    app.option_defaults()->always_capture_default()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.option_defaults()->disable_flag_override();
}

CLI::Validator wholeNumberIn(long long min, long long max)
{
    return CLI::Validator(
        [min, max](std::string &text) -> std::string {
            long long value = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec != std::errc() || end != text.data() + text.size())
                return "expects a whole number, got '" + text + "'";
            if (value < min || value > max)
                return "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + text;
            text = std::to_string(value);
            return {};
        },
        "INT in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
}

CLI::Validator numberIn(double min, double max)
{
    return CLI::Validator(
        [min, max](std::string &text) -> std::string {
            double value = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
                return "expects a number, got '" + text + "'";
            if (value < min || value > max)
                return "must be between " + shortest(min) + " and " + shortest(max) + ", got " + text;
            text = exactForCli11(value);
            return {};
        },
        "X in [" + shortest(min) + ", " + shortest(max) + "]");
}

CLI::Validator oneOf(std::vector<std::string> choices, bool quoted)
{
    std::string listed;
    std::string described;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        const std::string shown = quoted ? "'" + choices[i] + "'" : choices[i];
        listed += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + shown;
        described += (i == 0 ? "" : "|") + choices[i];
    }
    return CLI::Validator(
        [choices = std::move(choices), listed](std::string &text) -> std::string {
            for (const std::string &choice : choices) {
                if (text == choice)
                    return {};
            }
            return "must be " + listed + ", got '" + text + "'";
        },
        described);
}

CLI::Validator nonEmpty()
{
    return CLI::Validator(
        [](std::string &text) { return text.empty() ? std::string("must not be empty") : std::string(); }, "");
}

CLI::Validator byteCount()
{
    return CLI::Validator(
        [](std::string &text) {
            std::int64_t bytes = 0;
            const Result<void> parsed = parseByteCount(text, bytes);
            return parsed ? std::string() : parsed.error().message;
        },
        "BYTES|auto");
}

bool isSwitch(const CLI::Option &option)
{
    return option.get_expected_max() == 0;
}

bool helpAsked(const std::vector<std::string> &args)
{
    return std::find_if(args.begin(), args.end(), [](const std::string &arg) { return arg == "--help" || arg == "-h"; })
           != args.end();
}

Result<void> parse(CLI::App &app, const std::vector<std::string> &args)
{
    std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 takes them last first
    std::optional<Error> failure;
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp &) {
        return makeError("--help is answered before parsing (helpAsked)");
    } catch (const CLI::ParseError &error) {
        failure = fromCli11(app, error);
    }
    // Arguments CLI11 did not take (allow_extras): an unknown flag explains whatever else failed.
    for (const std::string &arg : app.remaining()) {
        if (arg.rfind("--", 0) == 0 && arg.size() > 2)
            return makeError("unknown option " + arg.substr(0, arg.find('=')));
        return makeError("unexpected argument '" + arg + "'");
    }
    if (failure)
        return *failure;
    return {};
}

} // namespace swarmtrain::flags

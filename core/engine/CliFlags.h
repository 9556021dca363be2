#pragma once

// What every command-line parser of ours shares on top of CLI11. CLI11 is header-only and slow
// to compile: include this only in the sources that parse flags.
#include "Result.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace swarmtrain::flags {

// Sets up an App for one command's flags: every option shows its default in --help, the last
// of a repeated flag wins, switches take no value, unknown flags are reported by parse().
void configure(CLI::App &app);

// Validators worded as our errors always were ("--n-layer must be between 1 and 1024, got 0");
// each also describes the accepted values in --help. The two number ones rewrite the value into
// a form CLI11's conversion reads exactly (it takes "010" as octal), so add them with
// transform(), which lets a validator change the value, not check().
CLI::Validator wholeNumberIn(long long min, long long max);
CLI::Validator numberIn(double min, double max); // finite numbers only
CLI::Validator oneOf(std::vector<std::string> choices, bool quoted = false);
CLI::Validator nonEmpty();
// --device-memory-budget's "auto" or a size such as 512M (parseByteCount).
CLI::Validator byteCount();

// A switch such as --bias: it takes no value.
bool isSwitch(const CLI::Option &option);

// Whether -h or --help is among `args`: the caller then prints help() of the App it would parse
// with, instead of parsing.
bool helpAsked(const std::vector<std::string> &args);

// Parses `args` (without the program name) into the options bound to `app`. A failure is one
// line that names the flag; an unknown flag is reported before anything else.
Result<void> parse(CLI::App &app, const std::vector<std::string> &args);

} // namespace swarmtrain::flags

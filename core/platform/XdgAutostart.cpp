#include "XdgAutostart.h"
#include "AutostartFile.h"

#include <cstdlib>
#include <fstream>

namespace swarmtrain {

namespace {

// The Desktop Entry spec's quoting for an Exec key: quote an argument with spaces, escape
// the characters that are special inside quotes.
std::string quoteForExec(const std::string &path)
{
    std::string quoted = "\"";
    for (char c : path) {
        if (c == '"' || c == '`' || c == '$' || c == '\\')
            quoted += '\\';
        quoted += c;
    }
    return quoted + "\"";
}

} // namespace

XdgAutostart::XdgAutostart(std::filesystem::path configDir) : m_configDir(std::move(configDir)) {}

std::filesystem::path XdgAutostart::defaultConfigDir()
{
    if (const char *config = std::getenv("XDG_CONFIG_HOME"); config && *config)
        return config;
    const char *home = std::getenv("HOME");
    return std::filesystem::path(home ? home : ".") / ".config";
}

bool XdgAutostart::isEnabled() const
{
    std::ifstream in(file());
    std::string line;
    while (std::getline(in, line)) {
        // Disabled by the desktop's own settings dialog, which keeps the file.
        if (line == "Hidden=true" || line == "X-GNOME-Autostart-enabled=false")
            return false;
    }
    return in.eof() && std::filesystem::exists(file());
}

Result<void> XdgAutostart::enable(const std::filesystem::path &executable, const std::string &arguments)
{
    std::string exec = quoteForExec(executable.string());
    if (!arguments.empty())
        exec += " " + arguments;
    const std::string entry = "[Desktop Entry]\n"
                              "Type=Application\n"
                              "Name=SwarmTrain\n"
                              "Comment=Trains open language models with a public swarm while the PC is idle\n"
                              "Exec=" + exec + "\n"
                              "Icon=swarmtrain\n"
                              "Terminal=false\n"
                              "X-GNOME-Autostart-enabled=true\n";
    return writeAutostartFile(file(), entry);
}

Result<void> XdgAutostart::disable() { return removeAutostartFile(file()); }

} // namespace swarmtrain

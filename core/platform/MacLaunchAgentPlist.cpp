#include "MacLaunchAgentPlist.h"

#include <string_view>
#include <vector>

namespace swarmtrain {

namespace {

// POSIX shell word splitting without expansions: blanks separate words; '...' keeps everything;
// "..." keeps everything but a backslash before \ " $ `; a backslash outside quotes keeps the
// next character.
std::vector<std::string> splitShellWords(const std::string &text)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord)
                words.push_back(std::move(word));
            word.clear();
            inWord = false;
            continue;
        }
        inWord = true;
        if (c == '\\' && i + 1 < text.size()) {
            word += text[++i];
        } else if (c == '\'') {
            const std::size_t end = text.find('\'', i + 1);
            word += text.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
            i = end == std::string::npos ? text.size() : end;
        } else if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                const bool escaped = text[i] == '\\' && i + 1 < text.size() &&
                                     std::string_view("\\\"$`").find(text[i + 1]) != std::string_view::npos;
                if (escaped)
                    ++i;
                word += text[i];
            }
        } else {
            word += c;
        }
    }
    if (inWord)
        words.push_back(std::move(word));
    return words;
}

std::string escapeXml(const std::string &text)
{
    std::string escaped;
    escaped.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&': escaped += "&amp;"; break;
        case '<': escaped += "&lt;"; break;
        case '>': escaped += "&gt;"; break;
        case '"': escaped += "&quot;"; break;
        case '\'': escaped += "&apos;"; break;
        default: escaped += c;
        }
    }
    return escaped;
}

} // namespace

std::string launchAgentPlist(const std::string &label, const std::filesystem::path &executable,
                             const std::string &arguments)
{
    std::string programArguments = "\t\t<string>" + escapeXml(executable.string()) + "</string>\n";
    for (const std::string &argument : splitShellWords(arguments))
        programArguments += "\t\t<string>" + escapeXml(argument) + "</string>\n";
    // Aqua only: the desktop client starts with the person's graphical login, not over ssh.
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
           "<plist version=\"1.0\">\n"
           "<dict>\n"
           "\t<key>Label</key>\n"
           "\t<string>" + escapeXml(label) + "</string>\n"
           "\t<key>ProgramArguments</key>\n"
           "\t<array>\n" + programArguments + "\t</array>\n"
           "\t<key>RunAtLoad</key>\n"
           "\t<true/>\n"
           "\t<key>LimitLoadToSessionType</key>\n"
           "\t<string>Aqua</string>\n"
           "</dict>\n"
           "</plist>\n";
}

} // namespace swarmtrain

#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace swarmtrain::test {

// A fresh folder under the system temp dir, removed with everything in it on destruction
// (kept, for a look at a run's logs, when SWARMTRAIN_KEEP_TEST_DIRS is set).
class TempDir {
public:
    TempDir()
    {
        std::random_device device;
        m_path = std::filesystem::temp_directory_path() / ("swarmtrain-test-" + std::to_string(device()));
        std::filesystem::create_directories(m_path);
    }
    ~TempDir()
    {
        if (std::getenv("SWARMTRAIN_KEEP_TEST_DIRS") != nullptr)
            return;
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;

    const std::filesystem::path &path() const { return m_path; }

    std::filesystem::path write(const std::string &name, const std::string &content) const
    {
        const std::filesystem::path file = m_path / name;
        std::filesystem::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary) << content;
        return file;
    }

private:
    std::filesystem::path m_path;
};

// Deterministic English-like text, so tests need no corpus from outside the repository.
inline std::string readWholeFile(const std::filesystem::path &file)
{
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string generatedText(std::size_t bytes, unsigned seed = 7)
{
    static const char *words[] = {"the", "swarm", "trains", "a", "model", "on", "many", "small", "machines",
                                  "while", "people", "play", "games", "and", "sleep", "every", "peer", "helps"};
    std::mt19937 rng(seed);
    std::string text;
    while (text.size() < bytes) {
        text += words[rng() % std::size(words)];
        // Sentences a line, and paragraphs of about six: a corpus has documents to hold out.
        if (rng() % 9 == 0)
            text += rng() % 6 == 0 ? ".\n\n" : ".\n";
        else
            text += " ";
    }
    text.resize(bytes);
    return text;
}

} // namespace swarmtrain::test

#include "CorpusInputs.h"

#include "Sha256.h"
#include "Tokenizer.h"

#include <algorithm>
#include <array>
#include <set>

namespace swarmtrain {

namespace {

constexpr std::size_t kSniffBytes = 64 * 1024;

bool endsWith(const std::string &name, std::string_view suffix)
{
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The format and compression a file name says; `known` false when it says neither.
CorpusFile classify(const std::filesystem::path &path, bool &known)
{
    CorpusFile file;
    file.path = path;
    std::string name = path.filename().string();
    if (endsWith(name, ".gz")) {
        file.compression = Compression::Gzip;
        name.resize(name.size() - 3);
    } else if (endsWith(name, ".zst")) {
        file.compression = Compression::Zstd;
        name.resize(name.size() - 4);
    }
    known = true;
    if (endsWith(name, ".jsonl"))
        file.format = CorpusFormat::JsonLines;
    else if (endsWith(name, ".txt"))
        file.format = CorpusFormat::Text;
    else if (endsWith(name, ".bin") && file.compression == Compression::None)
        file.format = CorpusFormat::TokenBin;
    else
        known = file.compression != Compression::None;
    return file;
}

// Why a file of no known name is not text, or "" when its first bytes are UTF-8 text (a
// character cut by the sample's end allowed).
std::string whyNotText(const CorpusFile &file)
{
    Result<std::unique_ptr<ByteSource>> source = openByteSource(file.path, file.compression);
    if (!source)
        return source.error().message;
    std::string sample(kSniffBytes, '\0');
    std::size_t got = 0;
    while (got < sample.size()) {
        Result<std::size_t> read = (*source)->read(sample.data() + got, sample.size() - got);
        if (!read)
            return read.error().message;
        if (*read == 0)
            break;
        got += *read;
    }
    sample.resize(got);
    if (sample.empty())
        return "it is empty";
    if (const std::size_t nul = sample.find('\0'); nul != std::string::npos)
        return "it holds binary data (a NUL byte at offset " + std::to_string(nul) + ")";
    if (const std::size_t bad = firstInvalidUtf8(sample); bad != std::string::npos && bad + 4 < sample.size())
        return "it is not UTF-8 text (invalid byte at offset " + std::to_string(bad) + ")";
    return {};
}

} // namespace

const char *corpusFormatName(CorpusFormat format)
{
    switch (format) {
    case CorpusFormat::Text: return "text";
    case CorpusFormat::JsonLines: return "jsonl";
    case CorpusFormat::TokenBin: return "bin";
    }
    return "?";
}

std::string CorpusInputs::sha256() const
{
    Sha256 hash;
    for (const CorpusFile &file : files) {
        hash.update(file.name);
        hash.update(std::string_view("\0", 1));
        hash.update(std::string(corpusFormatName(file.format)) + "/" + std::to_string(int(file.compression)) + "/"
                    + std::to_string(file.bytes) + "\n");
    }
    return Sha256::hex(hash.finish());
}

std::uint64_t CorpusInputs::totalBytes() const
{
    std::uint64_t total = 0;
    for (const CorpusFile &file : files)
        total += file.bytes;
    return total;
}

bool CorpusInputs::hasTokenFiles() const
{
    return std::any_of(files.begin(), files.end(), [](const CorpusFile &f) { return f.format == CorpusFormat::TokenBin; });
}

Result<CorpusInputs> listCorpusInputs(const std::vector<std::filesystem::path> &paths)
{
    CorpusInputs inputs;
    std::set<std::filesystem::path> seen; // a file taken twice: named twice, or a link to one taken
    auto take = [&](const std::filesystem::path &path, const std::string &name, bool inFolder) -> Result<void> {
        std::error_code ec;
        const std::filesystem::path canonical = std::filesystem::canonical(path, ec);
        if (ec || !seen.insert(canonical).second)
            return {};
        bool known = false;
        CorpusFile file = classify(path, known);
        file.name = name;
        file.bytes = std::filesystem::file_size(path, ec);
        if (ec)
            return makeError("cannot read the size of " + path.string() + ": " + ec.message());
        if (!known) {
            if (const std::string why = whyNotText(file); !why.empty()) {
                if (!inFolder)
                    return makeError("data file " + path.string() + " cannot be used: " + why);
                inputs.skipped.push_back(path);
                return {};
            }
        }
        inputs.files.push_back(std::move(file));
        return {};
    };
    for (const std::filesystem::path &path : paths) {
        std::error_code ec;
        const auto status = std::filesystem::status(path, ec);
        if (ec || !std::filesystem::exists(status))
            return makeError("data not found: " + path.string());
        if (!std::filesystem::is_directory(status)) {
            if (Result<void> taken = take(path, path.filename().string(), false); !taken)
                return taken.error();
            continue;
        }
        std::vector<std::filesystem::path> entries;
        for (const auto &entry : std::filesystem::directory_iterator(path, ec)) {
            const std::string name = entry.path().filename().string();
            if (!name.starts_with(".") && entry.is_regular_file(ec))
                entries.push_back(entry.path());
        }
        if (ec)
            return makeError("cannot list " + path.string() + ": " + ec.message());
        std::sort(entries.begin(), entries.end());
        std::filesystem::path normal = path.lexically_normal();
        if (normal.filename().empty()) // "corpus/"
            normal = normal.parent_path();
        const std::string folder = normal.filename().string();
        for (const std::filesystem::path &entry : entries) {
            if (Result<void> taken = take(entry, folder + "/" + entry.filename().string(), true); !taken)
                return taken.error();
        }
    }
    if (inputs.files.empty())
        return makeError("no corpus files in the --data given (text, .jsonl, .bin, or those compressed as .gz or .zst)");
    return inputs;
}

} // namespace swarmtrain

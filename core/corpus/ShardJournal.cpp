#include "ShardJournal.h"

#include "FileIo.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace swarmtrain {

namespace {

using json = nlohmann::json;

constexpr char kJournalName[] = "journal.jsonl";
constexpr std::uint64_t kMaxJournalBytes = 1ull << 30;

std::span<const std::byte> asBytes(std::string_view text)
{
    return {reinterpret_cast<const std::byte *>(text.data()), text.size()};
}

std::string headerLine(const std::string &corpusKey)
{
    return json{{"journal", 1}, {"corpus", corpusKey}}.dump() + "\n";
}

json entryJson(const ShardJournal::Entry &entry)
{
    const ShardRecord &s = entry.shard;
    const PassState &r = entry.resume;
    return {{"split", entry.split},
            {"shard", {{"id", s.id}, {"bytes", s.bytes}, {"tokens", s.tokens}, {"documents", s.documents}, {"sha256", s.sha256}}},
            {"resume",
             {{"document", r.document},
              {"produced", {r.produced[0], r.produced[1]}},
              {"documents", {r.documents[0], r.documents[1]}},
              {"validation_bytes", r.validationBytes}}}};
}

ShardJournal::Entry entryOf(const json &line)
{
    ShardJournal::Entry entry;
    entry.split = line.at("split").get<int>();
    if (entry.split != 0 && entry.split != 1)
        throw std::invalid_argument("split");
    const json &s = line.at("shard");
    entry.shard = {s.at("id").get<std::string>(), s.at("bytes").get<std::uint64_t>(), s.at("tokens").get<std::uint64_t>(),
                   s.at("documents").get<std::uint64_t>(), s.at("sha256").get<std::string>()};
    if (entry.shard.id.find_first_of("/\\") != std::string::npos || entry.shard.id.starts_with("."))
        throw std::invalid_argument("id");
    const json &r = line.at("resume");
    entry.resume.document = r.at("document").get<std::uint64_t>();
    for (int i = 0; i < 2; ++i) {
        entry.resume.produced[std::size_t(i)] = r.at("produced").at(std::size_t(i)).get<std::uint64_t>();
        entry.resume.documents[std::size_t(i)] = r.at("documents").at(std::size_t(i)).get<std::uint64_t>();
    }
    entry.resume.validationBytes = r.at("validation_bytes").get<std::uint64_t>();
    return entry;
}

} // namespace

Result<void> ShardJournal::startOver(const std::filesystem::path &dir, const std::string &corpusKey)
{
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".tokens")
            std::filesystem::remove(entry.path(), ec);
    }
    const std::string header = headerLine(corpusKey);
    return writeFileAtomically(dir / kJournalName, asBytes(header));
}

Result<ShardJournal> ShardJournal::open(const std::filesystem::path &dir, const std::string &corpusKey,
                                        const std::function<void(const std::string &)> &log)
{
    ShardJournal journal;
    journal.m_file = dir / kJournalName;
    std::error_code ec;
    if (!std::filesystem::exists(journal.m_file, ec)) {
        if (Result<void> fresh = startOver(dir, corpusKey); !fresh)
            return fresh.error();
        return journal;
    }
    Result<std::vector<std::byte>> bytes = readFileBytes(journal.m_file, kMaxJournalBytes);
    if (!bytes)
        return bytes.error();
    const std::string text(reinterpret_cast<const char *>(bytes->data()), bytes->size());
    std::string why;
    std::size_t kept = 0; // bytes of whole, valid lines
    for (std::size_t begin = 0; begin < text.size() && why.empty();) {
        const std::size_t end = text.find('\n', begin);
        if (end == std::string::npos)
            break; // a line the kill cut short
        const json line = json::parse(text.substr(begin, end - begin), nullptr, false);
        if (begin == 0) {
            if (line.is_discarded() || !line.is_object() || line.value("corpus", std::string()) != corpusKey)
                why = "a journal of a pass over other data or settings";
        } else {
            try {
                Entry entry = entryOf(line);
                const std::filesystem::path file = dir / entry.shard.fileName();
                if (std::filesystem::file_size(file, ec) != entry.shard.bytes || ec)
                    why = "its shard " + entry.shard.fileName() + " is missing or of another size";
                else
                    journal.m_entries.push_back(std::move(entry));
            } catch (const std::exception &) {
                why = "a damaged line";
            }
        }
        begin = end + 1;
        kept = begin;
    }
    if (kept == 0 && why.empty())
        why = "no header";
    if (!why.empty()) {
        log("the interrupted tokenizing pass in " + dir.string() + " cannot be resumed (" + why + "): starting over");
        journal.m_entries.clear();
        if (Result<void> fresh = startOver(dir, corpusKey); !fresh)
            return fresh.error();
        return journal;
    }
    if (kept < text.size()) {
        if (Result<void> trimmed = writeFileAtomically(journal.m_file, asBytes(std::string_view(text).substr(0, kept)));
            !trimmed)
            return trimmed.error();
    }
    return journal;
}

Result<void> ShardJournal::append(const Entry &entry)
{
    const std::string line = entryJson(entry).dump() + "\n";
    const int fd = ::open(m_file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return makeError("cannot open " + m_file.string() + ": " + std::strerror(errno));
    std::size_t done = 0;
    int failure = 0;
    while (done < line.size() && failure == 0) {
        const ssize_t wrote = ::write(fd, line.data() + done, line.size() - done);
        if (wrote < 0 && errno != EINTR)
            failure = errno;
        else if (wrote > 0)
            done += std::size_t(wrote);
    }
    if (failure == 0 && ::fsync(fd) != 0)
        failure = errno;
    ::close(fd);
    if (failure != 0)
        return makeError("cannot append to " + m_file.string() + ": " + std::strerror(failure));
    m_entries.push_back(entry);
    return {};
}

void ShardJournal::remove()
{
    std::error_code ec;
    std::filesystem::remove(m_file, ec);
}

} // namespace swarmtrain

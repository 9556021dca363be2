#pragma once

#include "ByteSource.h"
#include "Result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace swarmtrain {

enum class CorpusFormat { Text, JsonLines, TokenBin };

struct CorpusFile {
    std::filesystem::path path;
    // Its name as the swarm's identity records it: the file name, or FOLDER/FILE for a file
    // found in a folder given, so a corpus moved elsewhere is still the same corpus.
    std::string name;
    CorpusFormat format = CorpusFormat::Text;
    Compression compression = Compression::None;
    std::uint64_t bytes = 0;
};

// The files a corpus is read from, in the order they are read. Each path given is a file, or a
// folder whose files directly inside it are taken (sorted by name; not its subfolders, nor
// hidden files, nor a second link to a file already taken). The format comes from the name:
// .jsonl (JSON Lines), .bin (llm.c tokens), .txt (paragraphs), each but .bin also as .gz or
// .zst. A file of another name is read as text when its first 64 KiB look like UTF-8 text; in a
// folder, one that does not is passed over (listed in `skipped`), and named on its own it is an
// error.
struct CorpusInputs {
    std::vector<CorpusFile> files;
    std::vector<std::filesystem::path> skipped;

    // SHA-256 (hex) of the files' names, formats and sizes, in order: what identifies the data
    // without reading it.
    std::string sha256() const;
    std::uint64_t totalBytes() const;
    bool hasTokenFiles() const;
};

Result<CorpusInputs> listCorpusInputs(const std::vector<std::filesystem::path> &paths);

const char *corpusFormatName(CorpusFormat format);

} // namespace swarmtrain

// The tokenizing pass on a large corpus (issue 42): throughput and peak memory. Prints JSON lines;
// figures only, never pass/fail:
//   swarmtrain_corpus_bench [--dir DIR] [--megabytes 512] [--vocab-size 4096] [--source PATH]...
// 1. Assembles a corpus of at least --megabytes of text from Debian-packaged text (by default the
//    copyright files, changelogs and READMEs under /usr/share/doc, the licenses and the fortunes):
//    their paragraphs, read through the corpus readers, are the pool; each document is 1 to 6 of
//    them drawn at random; the documents go as JSON Lines into one zstd stream (DIR/corpus.jsonl.zst).
// 2. Trains a SentencePiece BPE tokenizer on a sample of it (its first 16 MB).
// 3. Runs the tokenizing pass (CorpusTokenizer: decompress, parse, tokenize, write shards of 1M
//    tokens) in a child process, whose peak RSS (VmHWM) is the pass's own; and, for comparison, a
//    child that only reads the documents.
// Single-threaded, as the pass is. The figures change with the machine's other load.
#include "CliFlags.h"
#include "CorpusReader.h"
#include "CorpusTokenizer.h"
#include "FileIo.h"

#include <nlohmann/json.hpp>
#include <zstd.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <random>

using namespace swarmtrain;
using json = nlohmann::json;

namespace {

constexpr std::size_t kPoolBytes = 64u << 20;
constexpr std::size_t kSampleBytes = 16u << 20;

struct Options {
    std::string dir = "corpus-bench";
    int megabytes = 512;
    int vocabSize = 4096;
    std::vector<std::string> sources = {"/usr/share/doc", "/usr/share/common-licenses", "/usr/share/games/fortunes"};
    std::string child;  // internal: "read" or "tokenize", run in a child process
};

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Text files under the sources: plain text and gzip'd changelogs, found recursively.
std::vector<std::filesystem::path> sourceFiles(const std::vector<std::string> &sources)
{
    std::vector<std::filesystem::path> files;
    for (const std::string &source : sources) {
        std::error_code ec;
        for (auto it = std::filesystem::recursive_directory_iterator(source, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            const std::string name = it->path().filename().string();
            const bool text = name == "copyright" || name.starts_with("README") || name.starts_with("changelog")
                              || name.starts_with("NEWS") || name.ends_with(".txt") || source.ends_with("fortunes")
                              || source.ends_with("licenses");
            if (text && !name.ends_with(".dat") && !name.ends_with(".html") && it->is_regular_file(ec))
                files.push_back(it->path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The paragraphs of the sources, up to kPoolBytes.
std::vector<std::string> paragraphPool(const std::vector<std::string> &sources)
{
    std::vector<std::string> pool;
    std::size_t bytes = 0;
    for (const std::filesystem::path &file : sourceFiles(sources)) {
        Result<CorpusInputs> inputs = listCorpusInputs({file});
        if (!inputs)
            continue; // not text after all
        CorpusReader reader(*inputs, {}, std::nullopt, {});
        Document document;
        while (bytes < kPoolBytes) {
            Result<bool> got = reader.next(document);
            if (!got || !*got)
                break;
            bytes += document.text.size();
            pool.push_back(std::move(document.text));
        }
        if (bytes >= kPoolBytes)
            break;
    }
    return pool;
}

// Writes the corpus and the tokenizer's training sample; the corpus's text bytes.
json assemble(const Options &o, const std::filesystem::path &corpus, std::vector<std::string> &sample)
{
    const auto started = std::chrono::steady_clock::now();
    const std::vector<std::string> pool = paragraphPool(o.sources);
    if (pool.empty())
        throw std::runtime_error("no source text found");
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    std::uniform_int_distribution<int> parts(1, 6);
    ZSTD_CCtx *context = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 3);
    std::ofstream out(corpus, std::ios::binary | std::ios::trunc);
    std::string compressed(ZSTD_CStreamOutSize(), '\0');
    auto write = [&](const std::string &bytes, ZSTD_EndDirective mode) {
        ZSTD_inBuffer input{bytes.data(), bytes.size(), 0};
        for (bool done = false; !done;) {
            ZSTD_outBuffer output{compressed.data(), compressed.size(), 0};
            const std::size_t left = ZSTD_compressStream2(context, &output, &input, mode);
            out.write(compressed.data(), std::streamsize(output.pos));
            done = mode == ZSTD_e_end ? left == 0 : input.pos == input.size;
        }
    };
    const std::uint64_t target = std::uint64_t(o.megabytes) << 20;
    std::uint64_t textBytes = 0, documents = 0, sampleBytes = 0;
    std::string batch;
    while (textBytes < target) {
        std::string text = pool[pick(rng)];
        for (int k = parts(rng); k > 1; --k)
            text += "\n\n" + pool[pick(rng)];
        textBytes += text.size();
        ++documents;
        if (sampleBytes < kSampleBytes) {
            sampleBytes += text.size();
            sample.push_back(text);
        }
        batch += json{{"id", documents}, {"text", std::move(text)}}.dump() + "\n";
        if (batch.size() >= (1u << 20)) {
            write(batch, ZSTD_e_continue);
            batch.clear();
        }
    }
    write(batch, ZSTD_e_end);
    ZSTD_freeCCtx(context);
    out.close();
    return {{"bench", "corpus_assemble"},       {"pool_paragraphs", pool.size()}, {"documents", documents},
            {"text_bytes", textBytes},          {"file_bytes", std::filesystem::file_size(corpus)},
            {"seconds", secondsSince(started)}};
}

// This process's peak resident memory, in MB: VmHWM belongs to the address space, which exec
// replaced, so a child's figure is its own (getrusage's would include what fork copied).
double residentMb(const std::string &field = "VmHWM:")
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with(field))
            return double(std::stoll(line.substr(field.size()))) / 1024.0; // kB
    }
    return -1.0;
}

// In the child: the pass (or only the reading), its figures into DIR/child.json.
int runChild(const Options &o)
{
    const std::filesystem::path dir = o.dir;
    // What the process holds before the pass: mostly the libraries it links (LibTorch's pages).
    const double startMb = residentMb("VmRSS:");
    const CorpusInputs inputs = listCorpusInputs({dir / "corpus.jsonl.zst"}).value();
    const auto started = std::chrono::steady_clock::now();
    json figures;
    if (o.child == "read") {
        CorpusReader reader(inputs, {}, std::nullopt, {});
        Document document;
        std::uint64_t documents = 0;
        while (reader.next(document).value())
            ++documents;
        figures = {{"documents", documents}};
    } else {
        const Tokenizer tokenizer = Tokenizer::loadSentencePiece((dir / "tokenizer.model").string()).value();
        std::filesystem::remove_all(dir / "shards");
        Result<CorpusManifest> manifest = CorpusTokenizer(inputs, tokenizer, {}, {}, dir / "shards", {}).run();
        if (!manifest) {
            std::cerr << manifest.error().message << std::endl;
            return 1;
        }
        std::uint64_t shardBytes = 0;
        for (const ShardRecord &shard : manifest->train)
            shardBytes += shard.bytes;
        figures = {{"documents", manifest->documents},
                   {"tokens", manifest->trainTokens() + manifest->validationTokens},
                   {"train_shards", manifest->train.size()},
                   {"validation_shards", manifest->validation.size()},
                   {"train_shard_bytes", shardBytes}};
    }
    figures["seconds"] = secondsSince(started);
    figures["peak_rss_mb"] = residentMb();
    figures["rss_before_mb"] = startMb;
    std::ofstream(dir / "child.json") << figures.dump();
    return 0;
}

// Runs this program as a child doing `what`; its figures.
json inChild(const Options &o, const std::string &what)
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
        ::execl(self.c_str(), self.c_str(), "--dir", o.dir.c_str(), "--child", what.c_str(), nullptr);
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("the " + what + " child failed");
    std::ifstream in(std::filesystem::path(o.dir) / "child.json");
    return json::parse(in);
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    CLI::App app("Tokenizing throughput and peak memory of the corpus pass on a corpus of Debian-packaged text");
    flags::configure(app);
    app.add_option("--dir", o.dir, "working folder (the corpus, the tokenizer and the shards go here)");
    app.add_option("--megabytes", o.megabytes, "text of the corpus, in MiB")->transform(flags::wholeNumberIn(1, 1 << 20));
    app.add_option("--vocab-size", o.vocabSize, "SentencePiece pieces")->transform(flags::wholeNumberIn(300, 1 << 20));
    app.add_option("--source", o.sources, "folders or files of text to draw paragraphs from (repeatable)")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--child", o.child)->group("");
    if (Result<void> parsed = flags::parse(app, std::vector<std::string>(argv + 1, argv + argc)); !parsed) {
        std::cerr << parsed.error().message << std::endl;
        return 2;
    }
    if (!o.child.empty())
        return runChild(o);
    try {
        const std::filesystem::path dir = o.dir;
        std::filesystem::create_directories(dir);
        std::vector<std::string> sample;
        const json assembled = assemble(o, dir / "corpus.jsonl.zst", sample);
        std::cout << assembled.dump() << std::endl;

        const auto started = std::chrono::steady_clock::now();
        SentencePieceTraining training;
        training.vocabSize = o.vocabSize;
        std::size_t next = 0;
        const std::string model = trainSentencePiece(training, [&](std::string &line) {
                                      if (next >= sample.size())
                                          return false;
                                      line = std::move(sample[next++]);
                                      return true;
                                  }).value();
        std::ofstream(dir / "tokenizer.model", std::ios::binary) << model;
        std::cout << json{{"bench", "tokenizer_train"}, {"vocab_size", o.vocabSize}, {"sample_documents", sample.size()},
                          {"seconds", secondsSince(started)}}
                         .dump()
                  << std::endl;

        const double textMb = double(assembled.at("text_bytes").get<std::uint64_t>()) / 1e6;
        const double fileMb = double(assembled.at("file_bytes").get<std::uint64_t>()) / 1e6;
        for (const std::string what : {"read", "tokenize"}) {
            json figures = inChild(o, what);
            const double seconds = figures.at("seconds").get<double>();
            figures["bench"] = "corpus_" + what;
            figures["text_mb"] = textMb;
            figures["text_mb_per_s"] = textMb / seconds;
            figures["compressed_mb_per_s"] = fileMb / seconds;
            if (figures.contains("tokens"))
                figures["tokens_per_s"] = double(figures.at("tokens").get<std::uint64_t>()) / seconds;
            std::cout << figures.dump() << std::endl;
        }
    } catch (const std::exception &e) {
        std::cerr << "swarmtrain_corpus_bench: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}

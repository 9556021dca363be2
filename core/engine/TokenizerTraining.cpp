#include "TokenizerTraining.h"

#include "CliFlags.h"
#include "FileIo.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>

namespace swarmtrain {

namespace {

void defineFlags(CLI::App &app, TokenizerTrainOptions &o, std::vector<std::string> &inputs, std::string &out)
{
    flags::configure(app);
    app.add_option("--input", inputs, "text files, or folders of .txt files, to learn the pieces from (repeatable)")
        ->type_name("FILE|DIR")
        ->required();
    app.add_option("--out", out, "where to write the model (a tokenizer.model)")->type_name("FILE")->required()->check(flags::nonEmpty());
    app.add_option("--vocab-size", o.training.vocabSize, "pieces in the vocabulary, the 256 byte pieces and <unk> <s> </s> included")
        ->transform(flags::wholeNumberIn(300, 1 << 20));
    app.add_option("--max-sentences", o.training.maxSentences, "lines sampled for training (bounds memory)")
        ->transform(flags::wholeNumberIn(1000, 1'000'000'000));
    app.add_option("--character-coverage", o.training.characterCoverage, "share of characters given pieces of their own; the rest go as bytes")
        ->transform(flags::numberIn(0.9, 1.0));
    app.add_option("--threads", o.training.threads, "training threads")->transform(flags::wholeNumberIn(1, 1024));
    app.add_option("--seed", o.training.seed, "seed of the line sampling")->transform(flags::wholeNumberIn(0, (1ll << 32) - 1));
}

// The regular files of `inputs`, folders expanded to their .txt files (sorted).
Result<std::vector<std::filesystem::path>> inputFiles(const std::vector<std::filesystem::path> &inputs)
{
    std::vector<std::filesystem::path> files;
    for (const std::filesystem::path &input : inputs) {
        std::error_code ec;
        if (std::filesystem::is_directory(input, ec)) {
            std::vector<std::filesystem::path> found;
            for (const auto &entry : std::filesystem::directory_iterator(input, ec)) {
                if (entry.is_regular_file() && entry.path().extension() == ".txt")
                    found.push_back(entry.path());
            }
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (std::filesystem::is_regular_file(input, ec)) {
            files.push_back(input);
        } else {
            return makeError("--input " + input.string() + ": no such file or folder");
        }
    }
    if (files.empty())
        return makeError("--input names no text files");
    return files;
}

} // namespace

std::string tokenizerTrainUsage()
{
    TokenizerTrainOptions o;
    std::vector<std::string> inputs;
    std::string out;
    CLI::App app("Trains a SentencePiece BPE tokenizer with byte fallback on a corpus, as Llama 2's was trained (no "
                 "normalization, whitespace kept, digits split). The model loads in any SentencePiece.",
                 "swarmtrain-cli tokenizer train");
    defineFlags(app, o, inputs, out);
    return app.help();
}

Result<TokenizerTrainOptions> parseTokenizerTrainOptions(const std::vector<std::string> &args)
{
    TokenizerTrainOptions o;
    std::vector<std::string> inputs;
    std::string out;
    CLI::App app;
    defineFlags(app, o, inputs, out);
    if (Result<void> parsed = flags::parse(app, args); !parsed)
        return parsed.error();
    o.inputs.assign(inputs.begin(), inputs.end());
    o.out = out;
    return o;
}

Result<std::string> trainTokenizer(const TokenizerTrainOptions &o, const std::function<void(const std::string &)> &log)
{
    Result<std::vector<std::filesystem::path>> files = inputFiles(o.inputs);
    if (!files)
        return files.error();
    const auto started = std::chrono::steady_clock::now();
    std::size_t next = 0;
    std::ifstream in;
    std::int64_t lines = 0, bytes = 0;
    std::string failure;
    Result<std::string> model = trainSentencePiece(o.training, [&](std::string &line) {
        while (!in.is_open() || !std::getline(in, line)) {
            in.close();
            in.clear();
            if (next >= files->size())
                return false;
            in.open((*files)[next], std::ios::binary);
            if (!in) {
                failure = "cannot read " + (*files)[next].string();
                return false;
            }
            log("reading " + (*files)[next++].string());
        }
        ++lines;
        bytes += std::int64_t(line.size()) + 1;
        return true;
    });
    if (!failure.empty())
        return makeError(failure);
    if (!model)
        return model.error();
    Result<Tokenizer> tokenizer = Tokenizer::fromSentencePiece(*model);
    if (!tokenizer)
        return makeError("the trained model does not load: " + tokenizer.error().message);
    if (Result<void> written = writeFileAtomically(o.out, std::as_bytes(std::span(*model))); !written)
        return makeError("cannot write " + o.out.string() + ": " + written.error().message);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return nlohmann::json{{"out", o.out.string()},           {"vocab_size", tokenizer->vocabSize()},
                          {"sha256", tokenizer->sha256()},   {"lines", lines},
                          {"bytes", bytes},                  {"seconds", seconds}}
        .dump();
}

} // namespace swarmtrain

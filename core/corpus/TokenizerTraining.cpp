#include "TokenizerTraining.h"

#include "CliFlags.h"
#include "CorpusInputs.h"
#include "CorpusVocabulary.h"
#include "FileIo.h"

#include <nlohmann/json.hpp>

#include <chrono>

namespace swarmtrain {

namespace {

void defineFlags(CLI::App &app, TokenizerTrainOptions &o, std::vector<std::string> &inputs, std::string &out)
{
    flags::configure(app);
    app.add_option("--input", inputs,
                   "corpus files (.txt, .jsonl, either also .gz or .zst), or folders of them, to learn the pieces "
                   "from (repeatable)")
        ->type_name("FILE|DIR")
        ->required();
    app.add_option("--text-field", o.textField, "JSON Lines: the field of each record that holds its text")
        ->check(flags::nonEmpty());
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
    Result<CorpusInputs> inputs = listCorpusInputs(o.inputs);
    if (!inputs)
        return makeError("--input: " + inputs.error().message);
    for (const CorpusFile &file : inputs->files)
        log("reading " + file.path.string());
    const auto started = std::chrono::steady_clock::now();
    CorpusReadOptions read;
    read.textField = o.textField;
    VocabularyPassReport report;
    Result<std::string> model = trainSentencePieceOnCorpus(*inputs, read, o.training, log, &report);
    if (!model)
        return model.error();
    Result<Tokenizer> tokenizer = Tokenizer::fromSentencePiece(*model);
    if (!tokenizer)
        return makeError("the trained model does not load: " + tokenizer.error().message);
    if (Result<void> written = writeFileAtomically(o.out, std::as_bytes(std::span(*model))); !written)
        return makeError("cannot write " + o.out.string() + ": " + written.error().message);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return nlohmann::json{{"out", o.out.string()},
                          {"vocab_size", tokenizer->vocabSize()},
                          {"sha256", tokenizer->sha256()},
                          {"documents", report.documents},
                          {"lines", report.lines},
                          {"bytes", report.bytes},
                          {"bad_records", report.badRecords},
                          {"seconds", seconds}}
        .dump();
}

} // namespace swarmtrain

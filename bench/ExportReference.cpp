// What the engine computes on a state, for bench/gguf-vs-llamacpp.sh to hold llama.cpp's answers
// on the exported GGUF against. Prints one JSON object:
//   swarmtrain_export_reference --state FILE --text FILE [--prompt-tokens 16] [--greedy-tokens 64]
// - text_ids: the SentencePiece ids of the whole text;
// - logprobs: for each of its first context-size ids but the last, log p(next id) under the model;
// - prompt: the first --prompt-tokens ids; greedy: the next --greedy-tokens ids, each the most
//   likely after what came before (the whole window recomputed each time, no cache).
#include "Checkpoint.h"
#include "CliFlags.h"
#include "FileIo.h"

#include <nlohmann/json.hpp>

#include <iostream>

using namespace swarmtrain;

int main(int argc, char **argv)
{
    std::string state, textFile;
    int promptTokens = 16, greedyTokens = 64;
    CLI::App app("The engine's token ids, next-token log-probabilities and greedy continuation on a state.",
                 "swarmtrain_export_reference");
    flags::configure(app);
    app.add_option("--state", state, "checkpoint or swarm state")->required();
    app.add_option("--text", textFile, "the held-out passage")->required();
    app.add_option("--prompt-tokens", promptTokens, "ids the greedy continuation starts from")
        ->transform(flags::wholeNumberIn(1, 1 << 20));
    app.add_option("--greedy-tokens", greedyTokens, "ids of the greedy continuation")
        ->transform(flags::wholeNumberIn(1, 1 << 20));
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (flags::helpAsked(args)) {
        std::cout << app.help();
        return 0;
    }
    const auto fail = [](const std::string &why) {
        std::cerr << "swarmtrain_export_reference: " << why << "\n";
        return 1;
    };
    if (Result<void> parsed = flags::parse(app, args); !parsed)
        return fail(parsed.error().message);
    Result<LoadedCheckpoint> checkpoint = readCheckpoint(state);
    if (!checkpoint)
        return fail(checkpoint.error().message);
    Decoder model(checkpoint->config);
    if (Result<void> restored = restoreModel(*checkpoint, *model); !restored)
        return fail(restored.error().message);
    model->eval();
    Result<std::vector<std::byte>> bytes = readFileBytes(textFile, 1 << 24);
    if (!bytes)
        return fail(bytes.error().message);
    const std::string text(reinterpret_cast<const char *>(bytes->data()), bytes->size());
    Result<std::vector<std::int32_t>> ids = checkpoint->tokenizer.encode(text);
    if (!ids)
        return fail(ids.error().message);
    const std::vector<std::int32_t> all = *ids;
    const int context = checkpoint->config.blockSize;
    if (int(ids->size()) > context)
        ids->resize(std::size_t(context));
    if (promptTokens + greedyTokens > context || promptTokens > int(ids->size()))
        return fail("the prompt and the continuation must fit the model's context of " + std::to_string(context));

    torch::NoGradGuard noGrad;
    const auto forward = [&](const std::vector<std::int32_t> &window) {
        const torch::Tensor tokens = torch::tensor(std::vector<std::int64_t>(window.begin(), window.end())).unsqueeze(0);
        return torch::log_softmax(model->forward(tokens).squeeze(0), -1);
    };
    const torch::Tensor logprobs = forward(*ids);
    std::vector<double> next;
    for (std::size_t t = 0; t + 1 < ids->size(); ++t)
        next.push_back(logprobs[std::int64_t(t)][(*ids)[t + 1]].item<double>());
    std::vector<std::int32_t> window(ids->begin(), ids->begin() + promptTokens);
    std::vector<std::int32_t> greedy;
    for (int i = 0; i < greedyTokens; ++i) {
        greedy.push_back(std::int32_t(forward(window)[std::int64_t(window.size()) - 1].argmax().item<std::int64_t>()));
        window.push_back(greedy.back());
    }
    std::cout << nlohmann::json{{"text", text},
                                {"text_ids", all},
                                {"logprobs", next},
                                {"prompt", std::vector<std::int32_t>(ids->begin(), ids->begin() + promptTokens)},
                                {"greedy", greedy}}
                     .dump()
              << std::endl;
    return 0;
}

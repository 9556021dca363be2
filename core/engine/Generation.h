#pragma once

#include "Result.h"
#include "Tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace swarmtrain {

class DecoderImpl;

// How a prompt is continued (swarmtrain-cli generate, the window's Model page).
struct GenerateOptions {
    std::string prompt;
    int maxTokens = 200;
    double temperature = 0.8; // 0: always the most likely token
    int topK = 40;            // sample among the k most likely (0: all)
    double topP = 1.0;        // ...and among the fewest whose probabilities add up to p
    std::uint64_t seed = 1;
};

struct GenerateReport {
    std::string text; // the continuation, from the prompt's last whole character (a prompt cut inside a
                      // character gets its start back, completed); raw bytes, not always UTF-8
    int promptTokens = 0;
    int tokens = 0;                // generated
    double seconds = 0.0;          // generating them, the prompt's pass included
    double tokensPerSecond = 0.0;  // generated tokens after the first, a token at a time
    std::string stopped;           // "max tokens", "end of text", "context full" or "asked"
    std::string device;            // where it ran ("cpu", "cuda:0")
};

// Continues the prompt token by token on the model's device, each token one position's work on
// a key/value cache (KvCache.h). An empty prompt starts after an end of text (a new document);
// a prompt longer than the model's context is refused. `onText` gets the text as it comes,
// whole UTF-8 characters at a time; returning false stops the generation.
Result<GenerateReport> generateText(DecoderImpl &model, const Tokenizer &tokenizer, const GenerateOptions &options,
                                    const std::function<bool(const std::string &)> &onText = {});

// generateText() with the model of a checkpoint or swarm state file (fully checked as it is
// read), on `device` (cpu, cuda, cuda:N or auto): for code that must not include LibTorch.
Result<GenerateReport> generateFromState(const std::filesystem::path &state, const std::string &device,
                                         const GenerateOptions &options,
                                         const std::function<bool(const std::string &)> &onText = {});

} // namespace swarmtrain

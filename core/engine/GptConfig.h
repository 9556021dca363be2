#pragma once

#include "Result.h"

#include <cstdint>
#include <string>

namespace swarmtrain {

// nanoGPT's GPTConfig. Declarative: a swarm ships this, never code.
struct GptConfig {
    int vocabSize = 0;
    int nLayer = 4;
    int nHead = 4;
    int nEmbd = 128;
    int blockSize = 64;
    double dropout = 0.0;
    bool bias = false;

    // Why the config cannot build a model, or an empty string.
    std::string validate() const;
    std::string toJson() const;
    static Result<GptConfig> fromJson(const std::string &json);

    // Parameters in the model (the tied output head counted once).
    std::int64_t parameterCount() const;
    // Training FLOPs per token (forward + backward), as in the PaLM appendix / nanoGPT's MFU.
    double flopsPerToken() const;
};

} // namespace swarmtrain

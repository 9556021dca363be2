#pragma once

// The model's command-line flags, shared by `swarmtrain-cli train` and swarmtrain-coordinator.
// CLI11 is slow to compile: include this only where flags are parsed.
#include "ModelConfig.h"
#include "Result.h"

#include <CLI/CLI.hpp>

#include <string>

namespace swarmtrain {

// What the flags read as text before they become a ModelConfig.
struct ModelFlagText {
    std::string family = "gpt";
    std::string configFile;
    bool untieEmbeddings = false;
    CLI::Option *kvHeads = nullptr;
    CLI::Option *intermediate = nullptr;
    std::vector<CLI::Option *> shapeFlags; // those --model-config replaces
};

// --family, --model-config FILE.json, and the shape flags (--n-layer, --n-head, --n-kv-head,
// --n-embd, --intermediate-size, --block-size, --dropout, --bias, --rope-theta, --rms-norm-eps,
// --untie-embeddings), bound to `model` and `text`.
void addModelFlags(CLI::App &app, ModelConfig &model, ModelFlagText &text);

// After parsing: the family, its defaults for flags not given (Llama: as many key/value heads
// as heads, an intermediate size of 8/3 the width rounded up to a multiple of 32), or the whole
// config from --model-config (a Hugging Face LlamaConfig's config.json, or a config as
// ModelConfig::toJson writes it), which no shape flag may accompany. The vocabulary size stays
// as the file gives it (0 without one: the tokenizer's).
Result<void> finishModelFlags(ModelConfig &model, const ModelFlagText &text);

} // namespace swarmtrain

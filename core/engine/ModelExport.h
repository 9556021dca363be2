#pragma once

#include "Result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

// What the swarm trained, in the formats people use (issue 44): a Hugging Face model folder that
// `transformers` loads as LlamaForCausalLM or GPT2LMHeadModel, and a GGUF file for llama.cpp
// (GgufExport.cpp says how it is laid out).
//
// The folder holds config.json (Hugging Face's LlamaConfig / GPT2Config fields),
// generation_config.json, model.safetensors under Hugging Face's tensor names and layouts (the
// Llama family already uses them; GPT-2's Conv1D weights are the transposes of nanoGPT's
// Linear ones, and a GPT trained without biases gets zero ones, as GPT2Config has no switch for
// them), the tokenizer (a SentencePiece tokenizer.model with tokenizer_config.json and
// special_tokens_map.json for LlamaTokenizer; a character or byte vocabulary as
// swarmtrain_vocabulary.json, which no Hugging Face tokenizer reads) and a model card,
// README.md. It is written into a temporary folder beside the destination and renamed into
// place only when every file is on disk, so a failure (a full disk, say) leaves nothing behind.
namespace swarmtrain {

struct ExportOptions {
    std::filesystem::path state; // a checkpoint (swarmtrain-cli train's) or a swarm state
    std::filesystem::path out;   // the folder (or GGUF file) to create; it must not exist yet
    std::string dtype = "float32"; // of the tensors: float32, bfloat16 or float16
    std::string license = "other"; // the model card's licence (an SPDX id, as the Hub takes it)
    std::string name;              // the model card's title; the folder's name when empty
    // Tokens one peer's inner step trains on (batch x context; the coordinator knows them): with a
    // swarm state's schedule step, the tokens the swarm trained (card and report). 0: unknown.
    std::int64_t tokensPerStep = 0;
    // The state file's SHA-256 (hex) as a record of it says (the coordinator's): a file that
    // hashes otherwise is refused. Empty: not checked.
    std::string expectedSha256;
};

struct ExportedFile {
    std::string name;
    std::uint64_t bytes = 0;
    std::string sha256;
};

struct ExportReport {
    std::filesystem::path folder;
    std::string architecture; // LlamaForCausalLM or GPT2LMHeadModel; GGUF's llama or gpt2
    std::int64_t parameters = 0;
    std::vector<ExportedFile> files; // sorted by name
    std::int64_t tokensTrained = -1; // -1: unknown (ExportOptions::tokensPerStep)
};

// Reads and fully checks the state (its SHA-256, config, tokenizer, shapes, finite values),
// then writes the folder. Errors name the file at fault.
Result<ExportReport> exportHuggingFace(const ExportOptions &options);
// The same state as one GGUF v3 file (its tokenizer must be SentencePiece: llama.cpp has no
// character-level one), written atomically.
Result<ExportReport> exportGguf(const ExportOptions &options);

// One JSON object: the folder, the architecture, the parameters and each file's size and hash.
std::string exportReportJson(const ExportReport &report);

} // namespace swarmtrain

#pragma once

#include "Checkpoint.h"
#include "ModelExport.h"

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

// What ModelExport.cpp (a Hugging Face folder) and GgufExport.cpp (a GGUF file) share: the
// checked state they export, its tensors under Hugging Face's names and layouts, the special
// tokens, and where a new export may go.
namespace swarmtrain {

struct ExportSource {
    LoadedCheckpoint checkpoint;
    Decoder model{nullptr};
    std::optional<std::int64_t> round; // a swarm state's
    std::int64_t scheduleStep = -1;    // ...and its tokens so far in steps of one peer (-1: unknown)
    std::string sha256;                // of the file
};

// Reads and fully checks a checkpoint or swarm state (its SHA-256, config, tokenizer, shapes,
// finite values) and restores its model; errors name the file. With `expectedSha256`, a file
// whose SHA-256 differs is refused.
Result<ExportSource> loadExportSource(const std::filesystem::path &file, const std::string &expectedSha256 = {});

// What every export starts from: the tensors' type (--dtype), the destination made absolute
// (nothing is there yet, and its parent is a folder), and the checked state.
struct ExportStart {
    DType dtype; // F32, BF16 or F16
    torch::ScalarType scalar;
    std::filesystem::path out;
    ExportSource source;
};
Result<ExportStart> startExport(const ExportOptions &options);

// Writes one file of an export atomically (writeFileAtomically), readable by all: a model is
// for sharing, unlike a state or a key.
Result<void> writeExportFile(const std::filesystem::path &file, std::span<const std::byte> bytes);

struct NamedTensor {
    std::string name;
    torch::Tensor value;
};

// The model's tensors as transformers lays out LlamaForCausalLM (the engine's own) or
// GPT2LMHeadModel: nanoGPT's names already are GPT-2's, but the four matrices GPT-2 keeps in
// Conv1D are [in, out], the transposes of nanoGPT's Linear weights, and every LayerNorm and
// Conv1D has a bias (zero where the GPT was trained without). A tied head is left out.
std::vector<NamedTensor> huggingFaceTensors(DecoderImpl &model);

// A SentencePiece tokenizer's <s>, </s> and unknown piece (unset for other tokenizers).
struct SpecialTokens {
    std::optional<int> bos, eos, unk;
    std::string unkText = "<unk>";
};
SpecialTokens specialTokensOf(const Tokenizer &tokenizer);

} // namespace swarmtrain

#pragma once

#include "Result.h"

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace swarmtrain {

struct TextCorpus {
    std::string text;
    std::vector<std::filesystem::path> files;
    std::vector<std::filesystem::path> skipped; // files in a folder that were not text
};

// A text file, or every text file directly inside a folder (sorted, joined by newlines).
// Missing paths, empty files and binary data are errors with the reason spelled out.
Result<TextCorpus> loadTextCorpus(const std::filesystem::path &path);

enum class Split { Train, Val };

// Tokens split 90/10 into train and validation, sampled as seeded random windows.
class TextDataset {
public:
    static Result<TextDataset> create(std::vector<std::int32_t> tokens, int blockSize);

    std::size_t size(Split split) const { return tokens(split).size(); }
    const std::vector<std::int32_t> &tokens(Split split) const { return split == Split::Train ? m_train : m_val; }

    // Fills x and y (batch * blockSize each, row-major); y is x shifted by one token.
    void sampleBatch(Split split, int batch, int blockSize, std::mt19937_64 &rng, std::int64_t *x,
                     std::int64_t *y) const;

private:

    std::vector<std::int32_t> m_train;
    std::vector<std::int32_t> m_val;
};

} // namespace swarmtrain

// Writes the SentencePiece fuzz target's seed: a small BPE model with byte fallback, trained by
// the library on a built-in text, as `swarmtrain-cli tokenizer train` makes them.
#include "Tokenizer.h"

#include <filesystem>
#include <fstream>
#include <iostream>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: MakeSentencePieceSeed DIR" << std::endl;
        return 2;
    }
    const char *verse[] = {"Shall I compare thee to a summer's day?", "Thou art more lovely and more temperate:",
                           "Rough winds do shake the darling buds of May,", "And summer's lease hath all too short a date;",
                           "Sometime too hot the eye of heaven shines,", "And often is his gold complexion dimm'd;"};
    int next = 0;
    swarmtrain::SentencePieceTraining options;
    options.vocabSize = 400;
    const swarmtrain::Result<std::string> model = swarmtrain::trainSentencePiece(options, [&](std::string &line) {
        if (next == 600)
            return false;
        line = verse[next % 6] + std::string(" ") + std::to_string(next);
        ++next;
        return true;
    });
    if (!model) {
        std::cerr << "MakeSentencePieceSeed: " << model.error().message << std::endl;
        return 1;
    }
    std::filesystem::create_directories(argv[1]);
    std::ofstream(std::filesystem::path(argv[1]) / "model", std::ios::binary) << *model;
    return 0;
}

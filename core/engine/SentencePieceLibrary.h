#pragma once

#include "Result.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

// The SentencePiece library, reached through a module of ours that SwarmTrain loads on first
// use (sentencepiece/SentencePieceModule.cpp). Debian's libsentencepiece carries its own copy of
// protobuf-lite and exports it, which clashes with the full libprotobuf LibTorch loads (a
// crash before main); the module is loaded with its own symbol scope (RTLD_LOCAL |
// RTLD_DEEPBIND), so each library keeps its protobuf. Only virtual calls cross: no symbol of
// the module is looked up but its one entry point.
namespace swarmtrain {

class SentencePieceProcessorApi {
public:
    virtual ~SentencePieceProcessorApi() = default;
    virtual int pieceCount() const = 0;
    virtual int eosId() const = 0;
    // Fills `ids`; returns an error message, empty on success. Thread-safe.
    virtual std::string encode(std::string_view text, std::vector<int> &ids) const = 0;
};

class SentencePieceLibraryApi {
public:
    virtual ~SentencePieceLibraryApi() = default;
    // A processor of the serialized ModelProto; null with `error` set when the library refuses it.
    virtual std::unique_ptr<SentencePieceProcessorApi> load(std::string_view model, std::string &error) const = 0;
    // Trains on the lines `nextLine` gives (false at the end) with the trainer's `args`; returns
    // an error message, empty on success, and the serialized model in `model`.
    virtual std::string train(const std::unordered_map<std::string, std::string> &args, std::uint32_t seed,
                              const std::function<bool(std::string &)> &nextLine, std::string &model) const = 0;
};

// The module's one exported function.
using SentencePieceEntry = const SentencePieceLibraryApi *(*)();
inline constexpr const char kSentencePieceEntry[] = "swarmtrain_sentencepiece_library";

// Loads the module once: $SWARMTRAIN_SENTENCEPIECE_MODULE, else the build tree's, else the
// installed one. An error says where it looked.
Result<const SentencePieceLibraryApi *> sentencePieceLibrary();

} // namespace swarmtrain

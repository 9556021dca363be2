#pragma once

#include "CoordinatorConfig.h"
#include "CoordinatorRecords.h"
#include "Result.h"

#include <QJsonObject>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

// The coordinator publishes what its swarm trained (issue 44): with --export-every N, every N-th
// state is exported as a Hugging Face folder and, where the tokenizer is SentencePiece, a GGUF
// file (ModelExport.h), into STATE/exports/round-R. The folder is built under a temporary name
// and renamed into place with its manifest.json (each file's name, size and SHA-256, the round,
// the validation loss and bits per byte), so a published round is always whole; the last
// --export-keep rounds are kept. GET /v1/model lists them and serves their files (ModelEndpoints).
namespace swarmtrain {

struct CoordinatorSetup;

std::filesystem::path exportsDir(const CoordinatorSetup &setup);

// A state to publish: its round, its file and the SHA-256 the file must still have.
struct PublishedState {
    qint64 round = 0;
    std::filesystem::path file;
    QString sha256;
    // The file goes into the published folder as state.safetensors (not listed in the manifest):
    // a pipeline swarm's model, put together from its stages, is GET /v1/checkpoint's.
    bool keepFile = false;
};

// Exports `state` (a round due: every N-th of a full-model swarm, the first collected from N on
// of a pipeline swarm): true when it did, false when exports are off or it was published before. `tokensPerStep`: the tokens of one
// step of the state's schedule, for the tokens trained. Runs the model: call it off the event
// loop.
Result<bool> publishModel(const CoordinatorSetup &setup, const ModelExportSettings &settings,
                          const PublishedState &state, std::optional<double> validationLoss,
                          std::int64_t tokensPerStep);
// The state file of the newest published round that kept one (a pipeline swarm's), with its
// manifest.
std::optional<std::pair<std::filesystem::path, QJsonObject>> publishedState(const std::filesystem::path &exports);

// One published round's manifest (as written, with "round" set), or none.
std::optional<QJsonObject> publishedModel(const std::filesystem::path &exports, qint64 round);
// The published rounds' manifests, newest first.
std::vector<QJsonObject> publishedModels(const std::filesystem::path &exports);

} // namespace swarmtrain

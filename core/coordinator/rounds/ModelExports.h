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

// Exports `checkpoint` (a state this coordinator holds) when its round is due: true when it
// did. The state file must still hash to its record. `tokensPerStep`: one peer's inner step's
// tokens (batch x context), for the tokens trained. Runs the model: call it off the event loop.
Result<bool> publishModel(const CoordinatorSetup &setup, const ModelExportSettings &settings,
                          const CheckpointRecord &checkpoint, std::optional<double> validationLoss,
                          std::int64_t tokensPerStep);

// One published round's manifest (as written, with "round" set), or none.
std::optional<QJsonObject> publishedModel(const std::filesystem::path &exports, qint64 round);
// The published rounds' manifests, newest first.
std::vector<QJsonObject> publishedModels(const std::filesystem::path &exports);

} // namespace swarmtrain

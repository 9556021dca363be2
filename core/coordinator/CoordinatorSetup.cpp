#include "CoordinatorSetup.h"

#include "Sha256.h"
#include "SqlCoordinatorStore.h"
#include "PostgresSchema.h"
#include "SqliteSchema.h"
#include "SwarmState.h"
#include "TextDataset.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace swarmtrain {

namespace {

constexpr char kSwarmMetaKey[] = "swarm";
constexpr char kTrainingMetaKey[] = "training";

// The settings that define which swarm a state dir holds; they must not change on restart.
nlohmann::json swarmIdentity(const CoordinatorConfig &config, const ModelConfig &model, const std::string &textSha256)
{
    return {{"model", nlohmann::json::parse(model.toJson())},
            {"tokenizer", tokenizerKindName(config.tokenizer)},
            {"data_sha256", textSha256},
            {"shard_bytes", config.shardBytes},
            {"seed", config.training.seed}};
}

std::string describeMismatch(const nlohmann::json &stored, const nlohmann::json &wanted)
{
    for (const auto &[key, value] : wanted.items()) {
        if (!stored.contains(key) || stored.at(key) != value) {
            if (key == "data_sha256")
                return "the training data differs from the data this state dir was made with";
            const std::string was = stored.contains(key) ? stored.at(key).dump() : "nothing";
            return "the " + key + " (" + value.dump() + ") differs from the one this state dir was made with (" + was
                   + ")";
        }
    }
    return "the swarm settings differ from the ones this state dir was made with";
}

// The latest global state, if any, checked against its recorded SHA-256.
Result<void> openCurrentState(CoordinatorSetup &setup)
{
    Result<std::optional<CheckpointRecord>> latest = setup.store->latestCheckpoint();
    if (!latest)
        return latest.error();
    if (!*latest)
        return {};
    setup.checkpoint = **latest;
    const std::filesystem::path file = setup.checkpointsDir() / setup.checkpoint.fileName.toStdString();
    Result<std::string> sha = Sha256::hexOfFile(file);
    if (!sha)
        return makeError("the current global state is missing: " + sha.error().message);
    if (QString::fromStdString(*sha) != setup.checkpoint.sha256)
        return makeError(file.string() + " does not match its recorded SHA-256 (changed or damaged)");
    return {};
}

} // namespace

Result<void> CoordinatorSetup::writeInitialState()
{
    if (hasState())
        return {};
    std::error_code ec;
    const QString name = QStringLiteral("round-0.safetensors");
    const std::filesystem::path file = checkpointsDir() / name.toStdString();
    if (Result<void> written = writeInitialSwarmState(file, model, *tokenizer, seed); !written)
        return written.error();
    Result<SwarmStateInfo> info = inspectSwarmState(file);
    if (!info)
        return makeError("the initial global state does not check out: " + info.error().message);
    Result<std::string> sha = Sha256::hexOfFile(file);
    if (!sha)
        return sha.error();
    const CheckpointRecord initial{0, name, QString::fromStdString(*sha), qint64(std::filesystem::file_size(file, ec)),
                                   QString::fromStdString(info->parametersHash), std::nullopt};
    if (Result<void> added = store->addCheckpoint(initial); !added)
        return added.error();
    checkpoint = initial;
    return {};
}

Result<std::unique_ptr<SqlCoordinatorStore>> openCoordinatorStore(const CoordinatorConfig &config)
{
    if (config.store == "sqlite")
        return SqlCoordinatorStore::openSqlite(config.stateDir / "coordinator.db");
    return SqlCoordinatorStore::openPostgres(QString::fromStdString(config.store));
}

Result<int> migrateCoordinatorStore(const CoordinatorConfig &config)
{
    std::error_code ec;
    std::filesystem::create_directories(config.stateDir, ec);
    if (ec)
        return makeError("cannot create " + config.stateDir.string() + ": " + ec.message());
    Result<std::unique_ptr<SqlCoordinatorStore>> store = openCoordinatorStore(config);
    if (!store)
        return store.error();
    return (*store)->dialect() == SqlCoordinatorStore::Dialect::Sqlite ? kSqliteSchemaVersion : kPostgresSchemaVersion;
}

Result<CoordinatorSetup> CoordinatorSetup::prepare(const CoordinatorConfig &config)
{
    CoordinatorSetup setup;
    setup.stateDir = config.stateDir;
    std::error_code ec;
    std::filesystem::create_directories(setup.checkpointsDir(), ec);
    if (ec)
        return makeError("cannot create " + setup.checkpointsDir().string() + ": " + ec.message());

    Result<std::unique_ptr<SqlCoordinatorStore>> store = openCoordinatorStore(config);
    if (!store)
        return store.error();
    setup.store = std::move(store).value();

    Result<TextCorpus> corpus = loadTextCorpus(config.data);
    if (!corpus)
        return corpus.error();
    if (config.tokenizer == TokenizerKind::Char) {
        Result<Tokenizer> tokenizer = Tokenizer::buildCharacter(corpus->text);
        if (!tokenizer)
            return tokenizer.error();
        setup.tokenizer = std::move(tokenizer).value();
    } else {
        setup.tokenizer = Tokenizer::byteLevel();
    }
    setup.model = config.model;
    if (Result<void> fitted = fitVocabulary(setup.model, setup.tokenizer->vocabSize()); !fitted)
        return makeError("model: " + fitted.error().message);
    if (const std::string why = setup.model.validate(); !why.empty())
        return makeError("model: " + why);
    setup.parameterCount = setup.model.parameterCount();

    const std::string textSha = Sha256::hexOf(
        std::span<const std::byte>(reinterpret_cast<const std::byte *>(corpus->text.data()), corpus->text.size()));
    const nlohmann::json identity = swarmIdentity(config, setup.model, textSha);
    Result<std::optional<QString>> stored = setup.store->meta(QLatin1StringView(kSwarmMetaKey));
    if (!stored)
        return stored.error();
    if (*stored) {
        const nlohmann::json previous = nlohmann::json::parse((*stored)->toStdString(), nullptr, false);
        if (previous != identity)
            return makeError(describeMismatch(previous, identity) + " (" + setup.stateDir.string() + ")");
    }

    Result<ShardManifest> manifest = ShardManifest::openOrCreate(setup.stateDir, corpus->text, config.shardBytes);
    if (!manifest)
        return manifest.error();
    setup.manifest = std::move(manifest).value();
    Result<std::vector<std::int32_t>> validation = setup.tokenizer->encode(setup.manifest->validationText());
    if (!validation)
        return makeError("the validation text: " + validation.error().message);
    setup.validationTokens = std::move(validation).value();
    if (!setup.manifest->validationText().empty())
        setup.validationTokensPerByte = double(setup.validationTokens.size()) / double(setup.manifest->validationText().size());

    setup.seed = config.training.seed;
    if (Result<void> current = openCurrentState(setup); !current)
        return current.error();
    if (!*stored) {
        if (Result<void> saved = setup.store->setMeta(QLatin1StringView(kSwarmMetaKey),
                                                      QString::fromStdString(identity.dump()));
            !saved)
            return saved.error();
    }
    const nlohmann::json training = {{"inner_steps", config.training.innerSteps}, {"batch_size", config.training.batchSize},
                                     {"lr", config.training.lr}, {"outer_lr", config.training.outerLr},
                                     {"outer_momentum", config.training.outerMomentum}};
    if (Result<void> saved = setup.store->setMeta(QLatin1StringView(kTrainingMetaKey),
                                                  QString::fromStdString(training.dump()));
        !saved)
        return saved.error();
    return setup;
}

} // namespace swarmtrain

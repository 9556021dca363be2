#include "CoordinatorSetup.h"

#include "CoordinatorLog.h"
#include "Sha256.h"
#include "SqlCoordinatorStore.h"
#include "PostgresSchema.h"
#include "SqliteSchema.h"
#include "SwarmState.h"
#include "SwarmTokenizer.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace swarmtrain {

namespace {

constexpr char kSwarmMetaKey[] = "swarm";
constexpr char kTrainingMetaKey[] = "training";

// The settings that define which swarm a state dir holds; they must not change on restart. The
// data is named by its files' names and sizes and how their text is read (hashing the corpus
// itself would read it all at every start); the shards' manifest holds the rest.
nlohmann::json swarmIdentity(const CoordinatorConfig &config, const ModelConfig &model, const Tokenizer &tokenizer,
                             const std::string &dataSha256)
{
    return {{"model", nlohmann::json::parse(model.toJson())},
            {"tokenizer", tokenizerKindName(config.tokenizer)},
            {"tokenizer_sha256", tokenizer.sha256()},
            {"data_sha256", dataSha256},
            {"shard_tokens", config.sharding.shardTokens},
            {"seed", config.training.seed}};
}

std::string dataSha256(const CoordinatorConfig &config, const CorpusInputs &inputs)
{
    const std::string source = inputs.sha256() + "/" + config.corpus.textField;
    return Sha256::hexOf(std::as_bytes(std::span(source)));
}

std::string describeMismatch(const nlohmann::json &stored, const nlohmann::json &wanted)
{
    if (stored.contains("shard_bytes"))
        return "this state dir was made by an older coordinator, whose shards are text: start the swarm in a new state "
               "dir";
    for (const auto &[key, value] : wanted.items()) {
        if (!stored.contains(key) || stored.at(key) != value) {
            if (key == "data_sha256")
                return "the training data (its files, their sizes, or --text-field) differs from the data this state "
                       "dir was made with";
            if (key == "tokenizer_sha256")
                return "the tokenizer differs from the one this state dir was made with";
            const std::string was = stored.contains(key) ? stored.at(key).dump() : "nothing";
            return "the " + key + " (" + value.dump() + ") differs from the one this state dir was made with (" + was
                   + ")";
        }
    }
    return "the swarm settings differ from the ones this state dir was made with";
}

// The stored identity against the wanted one, or only against the keys the wanted one has (the
// data's, checked before the tokenizer is learned from it).
Result<void> checkIdentity(const std::optional<QString> &stored, const nlohmann::json &wanted,
                           const std::filesystem::path &stateDir)
{
    if (!stored)
        return {};
    const nlohmann::json previous = nlohmann::json::parse(stored->toStdString(), nullptr, false);
    nlohmann::json compared = previous;
    if (previous.is_object() && !previous.contains("shard_bytes")) {
        compared = nlohmann::json::object();
        for (const auto &[key, value] : wanted.items()) {
            if (previous.contains(key))
                compared[key] = previous.at(key);
        }
    }
    if (compared != wanted)
        return makeError(describeMismatch(previous, wanted) + " (" + stateDir.string() + ")");
    return {};
}

void logLine(const std::string &line) { qCInfo(lcCoordinator).noquote() << QString::fromStdString(line); }

// The tokenizer, the model that fits it, and the token shards with the validation split.
Result<void> prepareData(CoordinatorSetup &setup, const CoordinatorConfig &config, const std::optional<QString> &stored,
                         nlohmann::json &identity)
{
    Result<CorpusInputs> inputs = listCorpusInputs(config.data);
    if (!inputs)
        return inputs.error();
    for (const std::filesystem::path &skipped : inputs->skipped)
        logLine("passing over " + skipped.string() + ": not a corpus file (not text)");
    const std::string data = dataSha256(config, *inputs);
    if (Result<void> same = checkIdentity(stored, {{"tokenizer", tokenizerKindName(config.tokenizer)},
                                                   {"data_sha256", data},
                                                   {"shard_tokens", config.sharding.shardTokens}},
                                          setup.stateDir);
        !same)
        return same;
    Result<SwarmTokenizer> tokenizer = SwarmTokenizer::prepare(config, *inputs, logLine);
    if (!tokenizer)
        return tokenizer.error();
    setup.tokenizer = tokenizer->tokenizer;
    setup.model = config.model;
    if (Result<void> fitted = fitVocabulary(setup.model, setup.tokenizer->vocabSize()); !fitted)
        return makeError("model: " + fitted.error().message);
    if (const std::string why = setup.model.validate(); !why.empty())
        return makeError("model: " + why);
    setup.parameterCount = setup.model.parameterCount();
    identity = swarmIdentity(config, setup.model, *setup.tokenizer, data);
    if (Result<void> same = checkIdentity(stored, identity, setup.stateDir); !same)
        return same;
    if (Result<void> kept = tokenizer->keepModel(); !kept)
        return kept;
    setup.tokenizerModelFile = tokenizer->modelFile;

    Result<ShardManifest> manifest =
        ShardManifest::openOrCreate(setup.stateDir, *inputs, *setup.tokenizer, config.corpus, config.sharding, logLine);
    if (!manifest)
        return manifest.error();
    setup.manifest = std::move(manifest).value();
    Result<std::vector<std::int32_t>> validation = setup.manifest->readValidationTokens();
    if (!validation)
        return makeError("the validation split: " + validation.error().message);
    setup.validationTokens = std::move(validation).value();
    return {};
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

    Result<std::optional<QString>> stored = setup.store->meta(QLatin1StringView(kSwarmMetaKey));
    if (!stored)
        return stored.error();
    nlohmann::json identity;
    if (Result<void> data = prepareData(setup, config, *stored, identity); !data)
        return data.error();

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

#include "ModelExports.h"

#include "CoordinatorSetup.h"
#include "FileIo.h"
#include "ModelExport.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>
#include <unistd.h>

namespace swarmtrain {

namespace {

constexpr qint64 kMaxManifestBytes = 1 << 20;
constexpr const char *kStateFileName = "state.safetensors";

std::optional<qint64> roundOfFolder(const std::string &name)
{
    if (!name.starts_with("round-") || name.size() > 6 + 18)
        return std::nullopt;
    bool ok = false;
    const qint64 round = QString::fromStdString(name.substr(6)).toLongLong(&ok);
    return ok && round >= 0 && std::to_string(round) == name.substr(6) ? std::optional(round) : std::nullopt;
}

QJsonArray filesOf(const ExportReport &report, const QString &prefix)
{
    QJsonArray files;
    for (const ExportedFile &f : report.files) {
        files.append(QJsonObject{{QStringLiteral("name"), prefix + QString::fromStdString(f.name)},
                                 {QStringLiteral("bytes"), qint64(f.bytes)},
                                 {QStringLiteral("sha256"), QString::fromStdString(f.sha256)}});
    }
    return files;
}

void forgetAllBut(const std::filesystem::path &exports, int keep)
{
    std::vector<qint64> rounds;
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator(exports, error)) {
        if (const std::optional<qint64> round = roundOfFolder(entry.path().filename().string()))
            rounds.push_back(*round);
    }
    std::sort(rounds.rbegin(), rounds.rend());
    for (std::size_t i = std::size_t(std::max(keep, 1)); i < rounds.size(); ++i)
        std::filesystem::remove_all(exports / ("round-" + std::to_string(rounds[i])), error);
}

} // namespace

std::filesystem::path exportsDir(const CoordinatorSetup &setup) { return setup.stateDir / "exports"; }

Result<bool> publishModel(const CoordinatorSetup &setup, const ModelExportSettings &settings,
                          const PublishedState &state, std::optional<double> validationLoss,
                          std::int64_t tokensPerStep)
{
    if (settings.every <= 0 || state.round <= 0)
        return false;
    const std::filesystem::path exports = exportsDir(setup);
    const std::filesystem::path folder = exports / ("round-" + std::to_string(state.round));
    std::error_code error;
    if (std::filesystem::exists(folder, error))
        return false; // published before a restart
    const std::filesystem::path building =
        exports / (".building-" + std::to_string(state.round) + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(building, error);
    std::filesystem::create_directories(building, error);
    if (error)
        return makeError("cannot create " + building.string() + ": " + error.message());
    const auto cleanUp = [&] { std::filesystem::remove_all(building, error); };

    ExportOptions options;
    options.state = state.file;
    options.expectedSha256 = state.sha256.toStdString(); // each export refuses a file that differs
    options.dtype = settings.dtype;
    options.license = settings.license;
    options.name = "SwarmTrain swarm model, round " + std::to_string(state.round);
    options.out = building / "hf";
    options.tokensPerStep = tokensPerStep;
    Result<ExportReport> hf = exportHuggingFace(options);
    if (!hf) {
        cleanUp();
        return hf.error();
    }
    QJsonArray files = filesOf(*hf, QStringLiteral("hf/"));
    QJsonObject manifest{{QStringLiteral("round"), state.round},
                         {QStringLiteral("state_sha256"), state.sha256},
                         {QStringLiteral("architecture"), QString::fromStdString(hf->architecture)},
                         {QStringLiteral("parameters"), qint64(hf->parameters)},
                         {QStringLiteral("dtype"), QString::fromStdString(settings.dtype)}};
    if (hf->tokensTrained >= 0)
        manifest.insert(QStringLiteral("tokens_trained"), qint64(hf->tokensTrained));
    options.out = building / "model.gguf";
    if (Result<ExportReport> gguf = exportGguf(options); gguf) {
        for (const QJsonValue file : filesOf(*gguf, QString()))
            files.append(file);
    } else {
        manifest.insert(QStringLiteral("gguf_not_exported"), QString::fromStdString(gguf.error().message));
    }
    manifest.insert(QStringLiteral("files"), files);
    if (validationLoss && std::isfinite(*validationLoss)) {
        manifest.insert(QStringLiteral("validation_loss"), *validationLoss);
        if (setup.manifest && setup.manifest->validationTokensPerByte() > 0.0)
            manifest.insert(QStringLiteral("validation_bits_per_byte"),
                            *validationLoss / std::log(2.0) * setup.manifest->validationTokensPerByte());
    }
    if (state.keepFile) {
        std::filesystem::rename(state.file, building / kStateFileName, error);
        if (error) {
            cleanUp();
            return makeError("cannot keep " + state.file.string() + ": " + error.message());
        }
    }
    const QByteArray json = QJsonDocument(manifest).toJson();
    if (Result<void> written = writeFileAtomically(building / "manifest.json", std::as_bytes(std::span(json.data(), json.size())));
        !written) {
        cleanUp();
        return written.error();
    }
    std::filesystem::rename(building, folder, error);
    if (error) {
        cleanUp();
        return makeError("cannot publish " + folder.string() + ": " + error.message());
    }
    forgetAllBut(exports, settings.keep);
    return true;
}

std::optional<QJsonObject> publishedModel(const std::filesystem::path &exports, qint64 round)
{
    Result<std::vector<std::byte>> bytes =
        readFileBytes(exports / ("round-" + std::to_string(round)) / "manifest.json", kMaxManifestBytes);
    if (!bytes)
        return std::nullopt;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray(reinterpret_cast<const char *>(bytes->data()), qsizetype(bytes->size())));
    if (!document.isObject())
        return std::nullopt;
    QJsonObject manifest = document.object();
    manifest.insert(QStringLiteral("round"), round);
    return manifest;
}

std::optional<std::pair<std::filesystem::path, QJsonObject>> publishedState(const std::filesystem::path &exports)
{
    for (QJsonObject &manifest : publishedModels(exports)) {
        const std::filesystem::path file =
            exports / ("round-" + std::to_string(manifest.value(QStringLiteral("round")).toInteger())) / kStateFileName;
        std::error_code error;
        if (std::filesystem::is_regular_file(file, error))
            return std::make_pair(file, std::move(manifest));
    }
    return std::nullopt;
}

std::vector<QJsonObject> publishedModels(const std::filesystem::path &exports)
{
    std::vector<QJsonObject> models;
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator(exports, error)) {
        const std::optional<qint64> round = roundOfFolder(entry.path().filename().string());
        if (!round)
            continue;
        if (std::optional<QJsonObject> manifest = publishedModel(exports, *round))
            models.push_back(std::move(*manifest));
    }
    std::sort(models.begin(), models.end(), [](const QJsonObject &a, const QJsonObject &b) {
        return a.value(QStringLiteral("round")).toInteger() > b.value(QStringLiteral("round")).toInteger();
    });
    return models;
}

} // namespace swarmtrain

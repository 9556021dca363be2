#include "ExportCommon.h"

#include "FileIo.h"
#include "SentencePieceModel.h"
#include "Sha256.h"

#include <algorithm>
#include <map>

namespace swarmtrain {

namespace {

// The id of the control piece `text` (<s>, </s>), or of the unknown piece, or none.
std::optional<int> pieceId(const SentencePieceModel *model, const std::string &text, SentencePiece::Type type)
{
    if (!model)
        return std::nullopt;
    const std::vector<SentencePiece> &pieces = model->pieces();
    for (std::size_t id = 0; id < pieces.size(); ++id) {
        if (pieces[id].type == type && (type == SentencePiece::Unknown || pieces[id].text == text))
            return int(id);
    }
    return std::nullopt;
}

} // namespace

Result<ExportSource> loadExportSource(const std::filesystem::path &file, const std::string &expectedSha256)
{
    Result<LoadedCheckpoint> loaded = readCheckpoint(file);
    if (!loaded)
        return loaded.error();
    // The container holds the file's bytes as read: its hash needs no second reading.
    const std::string sha256 = Sha256::hexOf(loaded->container.storage);
    if (!expectedSha256.empty() && sha256 != expectedSha256)
        return makeError(file.string() + " does not hash to its record (" + expectedSha256 + "): not exported");
    ExportSource source{std::move(loaded).value(), Decoder(nullptr), std::nullopt, -1, {}};
    Result<Decoder> model = restoredModel(source.checkpoint, file);
    if (!model)
        return model.error();
    source.model = std::move(model).value();
    if (source.checkpoint.container.meta("round")) {
        Result<OuterState> outer = readOuterState(source.checkpoint, source.checkpoint.config.parameterCount());
        if (!outer)
            return makeError(file.string() + ": " + outer.error().message);
        source.round = outer->round;
        source.scheduleStep = outer->scheduleStep;
    }
    source.sha256 = sha256;
    return source;
}

Result<ExportStart> startExport(const ExportOptions &o)
{
    auto [dtype, scalar] = std::pair(DType::F32, torch::kFloat32);
    if (o.dtype == "bfloat16")
        std::tie(dtype, scalar) = std::pair(DType::BF16, torch::kBFloat16);
    else if (o.dtype == "float16")
        std::tie(dtype, scalar) = std::pair(DType::F16, torch::kFloat16);
    else if (o.dtype != "float32")
        return makeError("--dtype must be float32, bfloat16 or float16, not '" + o.dtype + "'");
    std::filesystem::path out = std::filesystem::absolute(o.out).lexically_normal();
    if (out.filename().empty())
        out = out.parent_path();
    std::error_code error;
    if (std::filesystem::exists(std::filesystem::symlink_status(out, error)))
        return makeError(o.out.string() + " already exists: export to a new path");
    if (!std::filesystem::is_directory(out.parent_path(), error))
        return makeError("cannot export to " + o.out.string() + ": " + out.parent_path().string() + " is not a folder");
    Result<ExportSource> source = loadExportSource(o.state, o.expectedSha256);
    if (!source)
        return source.error();
    return ExportStart{dtype, scalar, std::move(out), std::move(source).value()};
}

Result<void> writeExportFile(const std::filesystem::path &file, std::span<const std::byte> bytes)
{
    if (Result<void> written = writeFileAtomically(file, bytes); !written)
        return makeError("cannot write the export: " + written.error().message);
    std::error_code error;
    using std::filesystem::perms;
    std::filesystem::permissions(file, perms::owner_read | perms::owner_write | perms::group_read | perms::others_read,
                                 error);
    return {};
}

std::vector<NamedTensor> huggingFaceTensors(DecoderImpl &model)
{
    std::vector<NamedTensor> named;
    if (model.config().isLlama()) {
        for (const auto &[name, value] : model.namedParameters())
            named.push_back({name, value});
        return named;
    }
    static const char *const conv1d[] = {".attn.c_attn.weight", ".attn.c_proj.weight", ".mlp.c_fc.weight",
                                         ".mlp.c_proj.weight"};
    std::map<std::string, torch::Tensor> present;
    for (const auto &[name, value] : model.namedParameters())
        present.emplace(name, value);
    for (const auto &[name, value] : present) {
        const bool transposed = std::any_of(std::begin(conv1d), std::end(conv1d),
                                            [&](const char *suffix) { return name.ends_with(suffix); });
        named.push_back({name, transposed ? value.t() : value});
        const bool hasBias = name.ends_with(".weight") && name != "transformer.wte.weight" && name != "transformer.wpe.weight";
        const std::string bias = name.substr(0, name.size() - std::string(".weight").size()) + ".bias";
        if (hasBias && !present.contains(bias))
            named.push_back({bias, torch::zeros({value.size(0)}, value.options())});
    }
    return named;
}

SpecialTokens specialTokensOf(const Tokenizer &tokenizer)
{
    const SentencePieceModel *sp = tokenizer.sentencePiece();
    SpecialTokens s{pieceId(sp, "<s>", SentencePiece::Control), pieceId(sp, "</s>", SentencePiece::Control),
                    pieceId(sp, "", SentencePiece::Unknown)};
    if (s.unk)
        s.unkText = sp->pieces()[std::size_t(*s.unk)].text;
    return s;
}

} // namespace swarmtrain

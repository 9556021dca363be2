// The SentencePiece side of Tokenizer: a tokenizer.model is checked field by field before the
// library parses it (a swarm's peers receive it from the coordinator), then encoded and decoded
// through the library, with invalid UTF-8 carried as byte tokens so any text round-trips.
#include "SentencePieceLibrary.h"
#include "SentencePieceModel.h"
#include "Sha256.h"
#include "Tokenizer.h"

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace swarmtrain {

namespace {

constexpr std::size_t kMaxModelBytes = 64u << 20;
constexpr std::size_t kMaxPieces = 1u << 20;
constexpr std::size_t kMaxPieceBytes = 1024;
constexpr char kSpaceMark[] = "\xe2\x96\x81"; // U+2581, SentencePiece's escaped space

// Protocol-buffer wire format, read with a bound on every length (only what the checks need).
class WireReader {
public:
    explicit WireReader(std::string_view bytes) : m_bytes(bytes) {}

    bool atEnd() const { return m_at >= m_bytes.size(); }
    const std::string &error() const { return m_error; }
    bool failed() const { return !m_error.empty(); }

    // The next field's number and wire type; false at the end or on an error.
    bool next(std::uint32_t &field, std::uint32_t &wireType)
    {
        if (atEnd() || failed())
            return false;
        std::uint64_t key = 0;
        if (!varint(key))
            return false;
        field = std::uint32_t(key >> 3);
        wireType = std::uint32_t(key & 7);
        if (field == 0 || key >> 3 > (1u << 29))
            return fail("a field number is out of range");
        return true;
    }

    bool varint(std::uint64_t &value)
    {
        value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (atEnd())
                return fail("a number runs past the end");
            const std::uint8_t byte = std::uint8_t(m_bytes[m_at++]);
            value |= std::uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80))
                return true;
        }
        return fail("a number is longer than ten bytes");
    }

    bool bytes(std::string_view &out)
    {
        std::uint64_t length = 0;
        if (!varint(length))
            return false;
        if (length > m_bytes.size() - m_at)
            return fail("a field's length runs past the end");
        out = m_bytes.substr(m_at, std::size_t(length));
        m_at += std::size_t(length);
        return true;
    }

    bool fixed32(std::uint32_t &value)
    {
        if (m_bytes.size() - m_at < 4)
            return fail("a 32-bit field runs past the end");
        std::memcpy(&value, m_bytes.data() + m_at, 4); // little-endian, as every supported CPU
        m_at += 4;
        return true;
    }

    bool skip(std::uint32_t wireType)
    {
        std::uint64_t ignored;
        std::string_view skipped;
        switch (wireType) {
        case 0: return varint(ignored);
        case 1:
            if (m_bytes.size() - m_at < 8)
                return fail("a 64-bit field runs past the end");
            m_at += 8;
            return true;
        case 2: return bytes(skipped);
        case 5: {
            std::uint32_t value;
            return fixed32(value);
        }
        default: return fail("an unsupported wire type (" + std::to_string(wireType) + ")");
        }
    }

    bool fail(std::string why)
    {
        if (m_error.empty())
            m_error = std::move(why);
        return false;
    }

private:
    std::string_view m_bytes;
    std::size_t m_at = 0;
    std::string m_error;
};

// sentencepiece_model.proto's piece types.
enum PieceType : std::uint64_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

struct ModelFacts {
    std::vector<std::pair<std::string, std::uint64_t>> pieces; // piece, type
    std::vector<float> scores;                                  // each piece's
    std::uint64_t modelType = 1; // UNIGRAM
    bool byteFallback = false;
    bool whitespaceAsSuffix = false;
    std::string normalizerName;
    bool hasCharsmap = false;
    bool hasRules = false;
    bool addDummyPrefix = true;         // the proto's defaults
    bool removeExtraWhitespaces = true;
    bool denormalizes = false;
};

bool readPiece(std::string_view bytes, ModelFacts &facts, WireReader &outer)
{
    WireReader r(bytes);
    std::string piece;
    std::uint64_t type = kNormal;
    float score = 0.0f;
    std::uint32_t field, wire;
    while (r.next(field, wire)) {
        std::string_view text;
        std::uint32_t bits;
        if (field == 1 && wire == 2 && r.bytes(text)) {
            piece.assign(text);
        } else if (field == 2 && wire == 5 && r.fixed32(bits)) {
            std::memcpy(&score, &bits, sizeof score);
            if (!std::isfinite(score))
                return outer.fail("a piece's score is not finite");
        } else if (field == 3 && wire == 0 && r.varint(type)) {
            if (type < kNormal || type > kByte)
                return outer.fail("a piece has an unknown type (" + std::to_string(type) + ")");
        } else if (!r.failed() && !r.skip(wire)) {
            break;
        }
    }
    if (r.failed())
        return outer.fail("piece " + std::to_string(facts.pieces.size()) + ": " + r.error());
    if (piece.empty() || piece.size() > kMaxPieceBytes)
        return outer.fail("piece " + std::to_string(facts.pieces.size()) + " is empty or longer than 1024 bytes");
    facts.pieces.emplace_back(std::move(piece), type);
    facts.scores.push_back(score);
    return true;
}

void readTrainerSpec(std::string_view bytes, ModelFacts &facts, WireReader &outer)
{
    WireReader r(bytes);
    std::uint32_t field, wire;
    while (r.next(field, wire)) {
        std::uint64_t value;
        if (field == 3 && wire == 0 && r.varint(value))
            facts.modelType = value;
        else if (field == 35 && wire == 0 && r.varint(value))
            facts.byteFallback = value != 0;
        else if (field == 24 && wire == 0 && r.varint(value))
            facts.whitespaceAsSuffix = value != 0;
        else if (!r.failed() && !r.skip(wire))
            break;
    }
    if (r.failed())
        outer.fail("trainer_spec: " + r.error());
}

void readNormalizerSpec(std::string_view bytes, ModelFacts &facts, WireReader &outer, bool denormalizer)
{
    WireReader r(bytes);
    std::uint32_t field, wire;
    while (r.next(field, wire)) {
        std::string_view text;
        std::uint64_t value;
        if (field == 1 && wire == 2 && r.bytes(text)) {
            if (!denormalizer)
                facts.normalizerName.assign(text);
        } else if (field == 2 && wire == 2 && r.bytes(text)) {
            facts.hasCharsmap = facts.hasCharsmap || !text.empty();
            facts.denormalizes = facts.denormalizes || (denormalizer && !text.empty());
        } else if (field == 6 && wire == 2 && r.bytes(text)) {
            facts.hasRules = facts.hasRules || !text.empty();
            facts.denormalizes = facts.denormalizes || (denormalizer && !text.empty());
        } else if (field == 3 && wire == 0 && r.varint(value)) {
            if (!denormalizer)
                facts.addDummyPrefix = value != 0;
        } else if (field == 4 && wire == 0 && r.varint(value)) {
            if (!denormalizer)
                facts.removeExtraWhitespaces = value != 0;
        } else if (!r.failed() && !r.skip(wire)) {
            break;
        }
    }
    if (r.failed())
        outer.fail(std::string(denormalizer ? "denormalizer_spec: " : "normalizer_spec: ") + r.error());
}

std::string pieceOfByte(int byte)
{
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", byte);
    return name;
}

// What the library will be given must be a model it handles without surprises: the sizes
// bounded, one unknown piece, every byte piece for byte fallback, and identity normalization
// (no precompiled character map: that binary table is the part of a model file the library
// trusts most, and a lossy normalization could not give the text back).
Result<ModelFacts> checkModel(std::string_view bytes)
{
    if (bytes.size() > kMaxModelBytes)
        return makeError("the SentencePiece model is larger than 64 MiB");
    ModelFacts facts;
    WireReader r(bytes);
    std::uint32_t field, wire;
    while (r.next(field, wire)) {
        std::string_view message;
        if (wire == 2 && (field == 1 || field == 2 || field == 3 || field == 5) && r.bytes(message)) {
            if (field == 1 && facts.pieces.size() >= kMaxPieces)
                return makeError("the SentencePiece model has more than 1048576 pieces");
            if (field == 1)
                readPiece(message, facts, r);
            else if (field == 2)
                readTrainerSpec(message, facts, r);
            else
                readNormalizerSpec(message, facts, r, field == 5);
        } else if (!r.failed() && !r.skip(wire)) {
            break;
        }
    }
    if (r.failed())
        return makeError("not a SentencePiece model: " + r.error());
    if (facts.pieces.empty())
        return makeError("the SentencePiece model has no pieces");
    if (facts.modelType != 1 && facts.modelType != 2)
        return makeError("the SentencePiece model is neither BPE nor unigram");
    if (!facts.normalizerName.empty() && facts.normalizerName != "identity")
        return makeError("the SentencePiece model normalizes text (" + facts.normalizerName.substr(0, 40)
                         + "): only identity normalization gives every text back");
    if (facts.hasCharsmap || facts.hasRules || facts.denormalizes)
        return makeError("the SentencePiece model carries a normalization table: only identity normalization is accepted");
    if (facts.removeExtraWhitespaces)
        return makeError("the SentencePiece model removes extra whitespace: the text would not come back as it was");
    if (!facts.byteFallback)
        return makeError("the SentencePiece model has no byte fallback: characters it never saw would be lost");
    if (facts.whitespaceAsSuffix)
        return makeError("the SentencePiece model puts its space marks after words: only Llama's layout, before them, is accepted");
    int unknown = 0;
    std::unordered_map<std::string, std::uint64_t> types;
    for (const auto &[piece, type] : facts.pieces) {
        unknown += type == kUnknown;
        if (!types.emplace(piece, type).second)
            return makeError("the SentencePiece model defines the piece \"" + piece.substr(0, 40) + "\" twice");
    }
    if (unknown != 1)
        return makeError("the SentencePiece model must have exactly one unknown piece");
    // Without a usable piece for the space mark, the library would carry it as the bytes of
    // U+2581, which decode as that character, not as the space it stood for.
    const auto space = types.find(kSpaceMark);
    if (space == types.end() || (space->second != kNormal && space->second != kUserDefined))
        return makeError("the SentencePiece model has no piece for its space mark U+2581: spaces would not come back");
    for (int b = 0; b < 256; ++b) {
        const auto it = types.find(pieceOfByte(b));
        if (it == types.end() || it->second != kByte)
            return makeError("the SentencePiece model lacks the byte piece " + pieceOfByte(b));
    }
    return facts;
}

std::size_t utf8Length(std::uint8_t lead)
{
    return lead < 0x80 ? 1 : (lead & 0xe0) == 0xc0 ? 2 : (lead & 0xf0) == 0xe0 ? 3 : 4;
}

// Where a text must be carried as bytes: invalid UTF-8 and the space mark U+2581.
std::size_t rawRunLength(std::string_view text, std::size_t at)
{
    std::size_t end = at;
    while (end < text.size()) {
        if (text.substr(end).starts_with(kSpaceMark)) {
            end += 3;
            continue;
        }
        const std::size_t bad = firstInvalidUtf8(text.substr(end, std::min<std::size_t>(4, text.size() - end)));
        if (bad != 0)
            break;
        ++end;
    }
    return end - at;
}

} // namespace

struct SentencePieceModel::Processors {
    std::unique_ptr<SentencePieceProcessorApi> model;        // as the model says
    std::unique_ptr<SentencePieceProcessorApi> continuation; // without the dummy prefix
};

SentencePieceModel::SentencePieceModel()
    : m_processors(std::make_unique<Processors>())
{
}

SentencePieceModel::~SentencePieceModel() = default;

Result<std::shared_ptr<const SentencePieceModel>> SentencePieceModel::load(std::string bytes)
{
    Result<ModelFacts> facts = checkModel(bytes);
    if (!facts)
        return facts.error();
    auto model = std::shared_ptr<SentencePieceModel>(new SentencePieceModel);
    model->m_dummyPrefix = facts->addDummyPrefix;
    // After bytes carried raw, the text goes on without the dummy prefix: the same model with
    // add_dummy_prefix off (a later normalizer_spec field merges into the first).
    std::string withoutPrefix = bytes;
    withoutPrefix.append("\x1a\x02\x18\x00", 4);
    Result<const SentencePieceLibraryApi *> library = sentencePieceLibrary();
    if (!library)
        return library.error();
    std::string refused;
    model->m_processors->model = (*library)->load(bytes, refused);
    if (model->m_processors->model)
        model->m_processors->continuation = (*library)->load(withoutPrefix, refused);
    if (!model->m_processors->continuation)
        return makeError("the SentencePiece library refuses the model: " + refused);
    const int size = model->m_processors->model->pieceCount();
    if (size != int(facts->pieces.size()))
        return makeError("the SentencePiece library reads another number of pieces");
    model->m_text.resize(std::size_t(size));
    model->m_isByte.assign(std::size_t(size), false);
    model->m_pieces.reserve(std::size_t(size));
    for (int id = 0; id < size; ++id) {
        const auto &[piece, type] = facts->pieces[std::size_t(id)];
        model->m_pieces.push_back({piece, facts->scores[std::size_t(id)], SentencePiece::Type(type)});
        std::string &text = model->m_text[std::size_t(id)];
        if (type == kByte) {
            model->m_isByte[std::size_t(id)] = true;
            text.assign(1, char(std::stoi(piece.substr(3, 2), nullptr, 16)));
            model->m_byteIds[std::uint8_t(text[0])] = id;
        } else if (type == kNormal || type == kUserDefined) {
            for (std::size_t at = 0; at < piece.size();) {
                if (piece.compare(at, 3, kSpaceMark) == 0) {
                    text.push_back(' ');
                    at += 3;
                } else {
                    text.push_back(piece[at++]);
                }
            }
        }
    }
    model->m_eos = model->m_processors->model->eosId();
    model->m_sha256 = Sha256::hexOf(std::span(reinterpret_cast<const std::byte *>(bytes.data()), bytes.size()));
    model->m_bytes = std::move(bytes);
    return std::shared_ptr<const SentencePieceModel>(std::move(model));
}

Result<std::vector<std::int32_t>> SentencePieceModel::encode(std::string_view text) const
{
    std::vector<std::int32_t> ids;
    std::vector<int> pieces;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t raw = rawRunLength(text, at);
        if (raw > 0) {
            for (std::size_t i = at; i < at + raw; ++i)
                ids.push_back(m_byteIds[std::uint8_t(text[i])]);
            at += raw;
            continue;
        }
        std::size_t end = at;
        while (end < text.size() && rawRunLength(text, end) == 0)
            end += utf8Length(std::uint8_t(text[end]));
        const SentencePieceProcessorApi &processor = at == 0 ? *m_processors->model : *m_processors->continuation;
        if (const std::string why = processor.encode(std::string_view(text.data() + at, end - at), pieces); !why.empty())
            return makeError("SentencePiece cannot encode the text: " + why);
        ids.insert(ids.end(), pieces.begin(), pieces.end());
        at = end;
    }
    return ids;
}

std::string SentencePieceModel::decode(std::span<const std::int32_t> ids) const
{
    std::string text;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const std::int32_t id = ids[i];
        if (id < 0 || id >= size())
            continue;
        const std::string &piece = m_text[std::size_t(id)];
        // The encoder's dummy prefix: the space it put before the text's first piece.
        if (i == 0 && m_dummyPrefix && !m_isByte[std::size_t(id)] && piece.starts_with(' '))
            text.append(piece, 1);
        else
            text += piece;
    }
    return text;
}

Result<Tokenizer> Tokenizer::fromSentencePiece(std::string model)
{
    Result<std::shared_ptr<const SentencePieceModel>> loaded = SentencePieceModel::load(std::move(model));
    if (!loaded)
        return loaded.error();
    Tokenizer tokenizer(TokenizerKind::SentencePiece, {});
    tokenizer.m_sentencePiece = std::move(loaded).value();
    return tokenizer;
}

Result<Tokenizer> Tokenizer::loadSentencePiece(const std::string &file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return makeError("cannot read " + file);
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0 || std::uint64_t(size) > kMaxModelBytes)
        return makeError(file + ": not a SentencePiece model of at most 64 MiB");
    in.seekg(0);
    std::string bytes(std::size_t(size), '\0');
    if (!in.read(bytes.data(), size))
        return makeError("cannot read " + file);
    Result<Tokenizer> tokenizer = fromSentencePiece(std::move(bytes));
    if (!tokenizer)
        return makeError(file + ": " + tokenizer.error().message);
    return tokenizer;
}

Result<std::string> trainSentencePiece(const SentencePieceTraining &o, const std::function<bool(std::string &line)> &nextLine)
{
    if (o.vocabSize < 300 || o.vocabSize > (1 << 20))
        return makeError("--vocab-size must be between 300 (the 256 bytes and some pieces) and 1048576");
    // Llama 2's settings: BPE, byte fallback, digits split, whitespace kept as it is, no
    // normalization; <unk> 0, <s> 1, </s> 2.
    const std::unordered_map<std::string, std::string> args = {
        {"model_type", "bpe"},
        {"vocab_size", std::to_string(o.vocabSize)},
        {"byte_fallback", "true"},
        {"split_digits", "true"},
        {"allow_whitespace_only_pieces", "true"},
        {"remove_extra_whitespaces", "false"},
        {"normalization_rule_name", "identity"},
        {"character_coverage", std::to_string(o.characterCoverage)},
        {"input_sentence_size", std::to_string(o.maxSentences)},
        {"shuffle_input_sentence", "true"},
        {"max_sentence_length", "16384"},
        {"num_threads", std::to_string(std::max(1, o.threads))},
        {"unk_id", "0"},
        {"bos_id", "1"},
        {"eos_id", "2"},
        {"pad_id", "-1"},
    };
    Result<const SentencePieceLibraryApi *> library = sentencePieceLibrary();
    if (!library)
        return library.error();
    std::string model;
    if (const std::string why = (*library)->train(args, std::uint32_t(o.seed), nextLine, model); !why.empty())
        return makeError("SentencePiece training failed: " + why);
    return model;
}

} // namespace swarmtrain

#include "CoordinatorConfig.h"

#include "CliFlags.h"
#include "ControlMessages.h"
#include "ModelFlags.h"

#include <QHostAddress>

#include <nlohmann/json.hpp>

#include <charconv>
#include <fstream>
#include <optional>
#include <tuple>
#include <utility>

namespace swarmtrain {

namespace {

constexpr std::size_t kMaxConfigBytes = 1u << 20;

// --config FILE.json: an object whose keys are the flag names without dashes; CLI11 gives its
// values to the flags the command line left unset, through the same validators.
class JsonConfig : public CLI::Config {
public:
    explicit JsonConfig(const CLI::App &app) : m_app(app) {}

    std::vector<CLI::ConfigItem> from_config(std::istream &input) const override
    {
        std::string text(kMaxConfigBytes + 1, '\0');
        input.read(text.data(), std::streamsize(text.size()));
        text.resize(std::size_t(input.gcount()));
        if (input.bad())
            throw CLI::ConfigError("--config: the file cannot be read");
        if (text.size() > kMaxConfigBytes)
            throw CLI::ConfigError("--config: the file is larger than 1 MiB");
        const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
        if (json.is_discarded() || !json.is_object())
            throw CLI::ConfigError("--config: the file is not a JSON object");

        std::vector<CLI::ConfigItem> items;
        for (const auto &[key, value] : json.items()) {
            if (key == "config")
                throw CLI::ConfigError("--config: a config file cannot name another config file");
            const CLI::Option *option = m_app.get_option_no_throw("--" + key);
            if (!option || option == m_app.get_help_ptr() || !option->get_configurable())
                throw CLI::ConfigError("--config: unknown key \"" + key + "\"");
            CLI::ConfigItem item;
            item.name = key;
            if (value.is_array()) { // a flag taking several values (--data)
                for (const nlohmann::json &element : value) {
                    if (!element.is_string())
                        throw CLI::ConfigError("--config: \"" + key + "\" must be a list of strings");
                    item.inputs.push_back(element.get<std::string>());
                }
                if (item.inputs.empty())
                    continue;
            } else if (flags::isSwitch(*option)) {
                if (!value.is_boolean())
                    throw CLI::ConfigError("--config: \"" + key + "\" must be true or false");
                if (!value.get<bool>())
                    continue; // a switch left off
                item.inputs = {"true"};
            } else if (value.is_string()) {
                item.inputs = {value.get<std::string>()};
            } else if (value.is_number()) {
                item.inputs = {value.dump()};
            } else {
                throw CLI::ConfigError("--config: \"" + key + "\" must be a string or a number");
            }
            items.push_back(std::move(item));
        }
        return items;
    }

    // Writing a config file back is not offered.
    std::string to_config(const CLI::App *, bool, bool, std::string) const override { return "{}\n"; }

private:
    const CLI::App &m_app;
};

// HOST:PORT, an IPv6 host in brackets; port 0 picks a free one.
std::optional<std::pair<std::string, int>> splitListen(const std::string &text)
{
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return std::nullopt;
    std::string host = text.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    const std::string port = text.substr(colon + 1);
    int value = -1;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value < 0 || value > 65535)
        return std::nullopt;
    return std::make_pair(host, value);
}

CLI::Validator hostAndPort()
{
    return CLI::Validator(
        [](std::string &text) {
            return splitListen(text) ? std::string()
                                     : "expects HOST:PORT with a port from 0 to 65535 (0 picks a free one), got '"
                                           + text + "'";
        },
        "HOST:PORT");
}

// Text flags, read into CoordinatorConfig's own types after parsing.
struct CoordinatorText {
    std::string listen, stateDir, tokenizer = "char", tokenizerModel, onBadRecord = "skip", cert, key,
                                  rangeSplit = "bandwidth", admission = "open", allowlist, trustedKeys;
    std::vector<std::string> data;
    std::string mode = "full", wire = "int8", rounds = "budget", innerState = "fresh";
    std::vector<std::string> place;
    double typicalMemoryGiB = 8.0;
    ModelFlagText model;
};

// --allowlist FILE, --trusted-keys FILE (`flag`): key ids, one a line; blank lines and lines
// starting with '#' are skipped.
Result<QSet<QString>> readKeyList(const std::string &flag, const std::filesystem::path &file)
{
    std::ifstream in(file);
    if (!in)
        return makeError(flag + ": cannot read " + file.string());
    QSet<QString> keys;
    std::string line;
    while (std::getline(in, line) && keys.size() <= 1'000'000) {
        const QString key = QString::fromStdString(line).trimmed();
        if (key.isEmpty() || key.startsWith(QLatin1Char('#')))
            continue;
        if (key.size() > 64)
            return makeError(flag + ": \"" + key.left(70).toStdString() + "\" is not a key id");
        keys.insert(key);
    }
    return keys;
}

// The corpus and its tokenizer (issue 42): what is read, how, and into which token shards.
void defineCorpusFlags(CLI::App &app, CoordinatorConfig &c, CoordinatorText &text)
{
    app.add_option("--data", text.data,
                   "the corpus (not with --migrate-only): files and folders of .txt (paragraphs), .jsonl (JSON Lines), "
                   "either also .gz or .zst, and llm.c .bin token files; a folder's files, not its subfolders")
        ->type_name("PATH...")
        ->expected(1, -1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->default_str("")
        ->check(flags::nonEmpty());
    app.add_option("--text-field", c.corpus.textField, "JSON Lines: the field of each record that holds its text")
        ->check(flags::nonEmpty());
    app.add_option("--on-bad-record", text.onBadRecord,
                   "a record that cannot be read (bad JSON, no text, invalid UTF-8, a truncated file, a lying .bin "
                   "header): left out and counted, or the end of the start")
        ->check(flags::oneOf({"skip", "refuse"}));
    app.add_option("--tokenizer", text.tokenizer,
                   "characters of the corpus, bytes, or a SentencePiece model (--tokenizer-model or --vocab-size)")
        ->check(flags::oneOf({"char", "byte", "sentencepiece"}));
    app.add_option("--tokenizer-model", text.tokenizerModel, "--tokenizer sentencepiece: the tokenizer.model to use")
        ->type_name("FILE")
        ->check(flags::nonEmpty());
    app.add_option("--vocab-size", c.tokenizerVocabSize,
                   "--tokenizer sentencepiece without a model: train one of this many pieces on the corpus first "
                   "(kept in the state dir)")
        ->default_str("")
        ->transform(flags::wholeNumberIn(300, 1 << 20));
    app.add_option("--shard-tokens", c.sharding.shardTokens, "tokens per data shard")
        ->transform(flags::wholeNumberIn(16, 1 << 30));
    // Tests: the tokenizing pass stops after this many shards, as if killed (hidden from --help).
    app.add_option("--test-stop-after-shards", c.sharding.stopAfterShards)
        ->transform(flags::wholeNumberIn(1, 1 << 30))
        ->group("");
}

// How the REST API is served: rate limits and TLS.
void defineServingFlags(CLI::App &app, CoordinatorConfig &c, CoordinatorText &text)
{
    app.add_option("--rate-limit-address", c.rateLimitPerAddress,
                   "requests per second one client address may make (bursts of 4 s' worth; 0: no limit)")
        ->transform(flags::numberIn(0.0, 1e6));
    app.add_option("--rate-limit-key", c.rateLimitPerKey,
                   "signed requests per second one peer key may make (bursts of 4 s' worth; 0: no limit)")
        ->transform(flags::numberIn(0.0, 1e6));
    app.add_option("--tls-cert", text.cert, "PEM certificate for HTTPS (with --tls-key)")
        ->type_name("FILE")
        ->check(flags::nonEmpty());
    app.add_option("--tls-key", text.key, "PEM private key of --tls-cert")->type_name("FILE")->check(flags::nonEmpty());
    app.add_flag("--tls-self-signed", c.tlsSelfSigned,
                 "HTTPS with a certificate made and kept in --state-dir (the default without --tls-cert)");
    app.add_flag("--plain-http", c.plainHttp,
                 "serve plain HTTP instead: answers can be forged on the way, so clients refuse it off loopback"
                 " unless they allow it");
}

// Who may join, and the limits on strangers (issue 16).
void defineTrustFlags(CLI::App &app, CoordinatorConfig &c, CoordinatorText &text)
{
    TrustSettings &trust = c.trust;
    app.add_option("--admission", text.admission,
                   "who may join: anyone (open), holders of the invite link (invite), the keys in --allowlist")
        ->check(flags::oneOf({"open", "invite", "allowlist"}));
    app.add_option("--allowlist", text.allowlist, "key ids allowed to join, one a line (with --admission allowlist)")
        ->type_name("FILE")
        ->check(flags::nonEmpty());
    app.add_option("--trusted-keys", text.trustedKeys,
                   "key ids past probation from their first round (the host's own PCs), one a line")
        ->type_name("FILE")
        ->check(flags::nonEmpty());
    app.add_option("--max-peers-per-address", trust.maxPeersPerAddress,
                   "identities online at once from one IP address (0: no limit)")
        ->transform(flags::wholeNumberIn(0, 1'000'000));
    app.add_option("--max-peers-per-subnet", trust.maxPeersPerSubnet,
                   "identities online at once from one /24 (IPv4) or /64 (IPv6) subnet (0: no limit)")
        ->transform(flags::wholeNumberIn(0, 1'000'000));
    app.add_option("--probation-rounds", trust.probationRounds,
                   "agreed rounds before a new identity of an open swarm votes and owns ranges")
        ->transform(flags::wholeNumberIn(0, 1'000'000));
    app.add_option("--ban-after", trust.banAfterOffences, "offences (dishonest claims or requests) that ban a key")
        ->transform(flags::wholeNumberIn(1, 1'000'000));
    app.add_option("--spot-check-rate", trust.spotCheckRate,
                   "share of established members' rounds another peer recomputes (0: none)")
        ->transform(flags::numberIn(0.0, 1.0));
    app.add_option("--spot-check-rate-new", trust.spotCheckRateNew,
                   "share of probationary members' rounds another peer recomputes (0: none)")
        ->transform(flags::numberIn(0.0, 1.0));
    app.add_flag("!--no-range-rulings", trust.rangeRulings,
                 "settle disputed ranges by their referee alone, not by the coordinator's ruling on the owner's "
                 "evidence (for tests: two colluding partners then decide an honest owner's range)");
    app.add_option("--range-audits", trust.rangeAuditRate,
                   "share of each round's ranges whose owners' evidence the coordinator recomputes, whatever their "
                   "checkers said; each audited owner uploads about one encoded model (0: none)")
        ->transform(flags::numberIn(0.0, 1.0));
    app.add_flag("!--no-referee-checks", trust.refereeChecks,
                 "have a range's referee check only disputed averages, not every one (for tests: a coalition then "
                 "decides its own range wherever it holds the checker)");
}

// Full-model rounds (issue 18): time-budgeted or fixed H.
void defineRoundFlags(CLI::App &app, CoordinatorConfig &c, CoordinatorText &text)
{
    app.add_option("--rounds", text.rounds,
                   "full-model rounds: each member trains what fits a time budget (budget), and a round starts "
                   "without waiting for those still training (async), or exactly --inner-steps (fixed)")
        ->check(flags::oneOf({"budget", "async", "fixed"}));
    app.add_option("--max-staleness", c.training.maxStaleness,
                   "--rounds async: the most rounds a member's state may lag the swarm's and its work still count")
        ->transform(flags::wholeNumberIn(0, protocol::kMaxStaleness));
    app.add_option("--round-seconds", c.roundSeconds,
                   "--rounds budget: seconds of training a round (0: what --inner-steps take the median peer)")
        ->transform(flags::numberIn(0.0, 86400.0));
    app.add_option("--min-inner-steps", c.training.minInnerSteps,
                   "--rounds budget: fewer steps in a round and a peer sits it out (0: an eighth of --inner-steps)")
        ->transform(flags::wholeNumberIn(0, 1'000'000));
    app.add_option("--max-inner-steps", c.training.maxInnerSteps,
                   "--rounds budget: the most steps a peer trains in a round (0: four times --inner-steps)")
        ->transform(flags::wholeNumberIn(0, 1'000'000'000));
    app.add_option("--inner-state", text.innerState,
                   "full-model rounds: each member's inner optimizer starts afresh every round, as spot checks "
                   "replay it (fresh), or runs on, for a swarm that spot-checks no one (kept)")
        ->check(flags::oneOf({"fresh", "kept"}));
}

// --inner-state kept: nobody could replay a member's round, so nobody is asked to.
Result<void> checkInnerState(CoordinatorConfig &c, const CoordinatorText &text)
{
    c.training.innerStateKept = text.innerState == "kept";
    if (c.training.innerStateKept && (c.trust.spotCheckRate > 0.0 || c.trust.spotCheckRateNew > 0.0))
        return makeError("--inner-state kept needs --spot-check-rate 0 and --spot-check-rate-new 0: a spot check "
                         "replays a round from a fresh inner optimizer");
    return {};
}

// Pipeline-stage mode (issue 17): the mode, the step's batch, the wire, validation and placement.
void definePipelineFlags(CLI::App &app, CoordinatorConfig &c, CoordinatorText &text)
{
    app.add_option("--mode", text.mode,
                   "how peers train: a whole model copy each (full), one pipeline stage each (pipeline), or "
                   "whichever fits the peers' memory (auto)")
        ->check(flags::oneOf({"full", "pipeline", "auto"}));
    app.add_option("--typical-peer-memory", text.typicalMemoryGiB,
                   "--mode auto: a typical peer's training memory in GiB, until peers have reported theirs")
        ->transform(flags::numberIn(0.01, 1 << 20));
    PipelineSettings &p = c.pipeline;
    app.add_option("--microbatches-per-step", p.microbatchesPerStep,
                   "pipeline mode: microbatches of one optimizer step, shared among the trainers")
        ->transform(flags::wholeNumberIn(1, protocol::kMaxMicrobatchesPerStep));
    app.add_option("--microbatch-size", p.microbatchSize, "pipeline mode: sequences a microbatch")
        ->transform(flags::wholeNumberIn(1, protocol::kMaxMicrobatchSize));
    app.add_option("--wire", text.wire, "pipeline mode: activations and their gradients on the wire")
        ->check(flags::oneOf({"int8", "fp16", "fp32"}));
    app.add_option("--eval-every", p.evalEvery, "pipeline mode: steps between validation losses (0: none)")
        ->transform(flags::wholeNumberIn(0, 1'000'000));
    app.add_option("--cross-check-share", p.crossCheckShare,
                   "pipeline mode: share of hops trainers also run on a second peer of the stage, comparing the answers (0: none)")
        ->transform(flags::numberIn(0, 1));
    app.add_option("--place", text.place, "pipeline mode: KEY_ID=STAGE, where that peer starts (repeatable)");
    app.add_option("--rebalance-seconds", c.rebalanceSeconds,
                   "pipeline mode: seconds between moves of a peer to the bottleneck stage")
        ->transform(flags::numberIn(0.0, 86400.0));
}

// Several instances (issue 20): the store they share and the load balancers in front of them.
void defineScaleFlags(CLI::App &app, CoordinatorConfig &c)
{
    app.add_option("--store", c.store,
                   "sqlite (a file in the state dir), or postgresql://user@host[:port]/db for several instances")
        ->type_name("sqlite|URL")
        ->check(
            [](const std::string &value) -> std::string {
                return value == "sqlite" || value.starts_with("postgresql://") || value.starts_with("postgres://")
                           ? std::string()
                           : "expects sqlite or postgresql://user@host[:port]/database, got '" + value + "'";
            },
            "STORE");
    app.add_option("--trusted-proxy", c.trustedProxies,
                   "address of a load balancer in front (repeatable): its requests are from the address it "
                   "appends to X-Forwarded-For")
        ->type_name("ADDRESS")
        ->check(
            [](const std::string &value) -> std::string {
                return QHostAddress(QString::fromStdString(value)).isNull()
                           ? "expects an IP address, got '" + value + "'"
                           : std::string();
            },
            "ADDRESS");
}

void defineCoordinatorFlags(CLI::App &app, CoordinatorConfig &c, CoordinatorText &text)
{
    flags::configure(app);
    app.config_formatter(std::make_shared<JsonConfig>(app));
    app.allow_config_extras(CLI::config_extras_mode::error);
    app.set_config("--config", "", "a JSON object of these flags, keys without the dashes (flags given here win)")
        ->type_name("FILE.json");

    text.listen = c.listenHost + ":" + std::to_string(c.listenPort);
    app.add_option("--listen", text.listen, "address and port of the REST API")->check(hostAndPort());
    app.add_option("--state-dir", text.stateDir, "folder of the database, checkpoints and shards")
        ->type_name("DIR")
        ->required()
        ->check(flags::nonEmpty());
    app.add_flag("--migrate-only", c.migrateOnly,
                 "bring the database's schema to this version, print it, and exit (before an upgrade's first start)");
    defineCorpusFlags(app, c, text);

    addModelFlags(app, c.model, text.model);

    TrainingSettings &t = c.training;
    app.add_option("--inner-steps", t.innerSteps, "local steps between rounds (H)")
        ->transform(flags::wholeNumberIn(1, 1'000'000));
    app.add_option("--batch-size", t.batchSize, "sequences per inner step")
        ->transform(flags::wholeNumberIn(1, 1 << 20));
    app.add_option("--lr", t.lr, "peak inner learning rate")->transform(flags::numberIn(0.0, 10.0));
    app.add_option("--min-lr", t.minLr, "inner learning rate at the end of the cosine decay")
        ->transform(flags::numberIn(0.0, 10.0));
    app.add_option("--warmup-iters", t.warmupIters, "inner steps of linear warm-up")
        ->transform(flags::wholeNumberIn(0, 1'000'000'000));
    app.add_option("--lr-decay-iters", t.lrDecayIters, "inner steps of the cosine decay (0: none, a swarm without end)")
        ->transform(flags::wholeNumberIn(0, 1'000'000'000'000));
    app.add_option("--adam-eps", t.adamEps, "the inner AdamW's epsilon")->transform(flags::numberIn(1e-12, 1.0));
    app.add_option("--weight-decay", t.weightDecay, "AdamW's decoupled weight decay")
        ->transform(flags::numberIn(0.0, 10.0));
    app.add_option("--grad-clip", t.gradClip, "largest gradient norm (0: no clipping)")
        ->transform(flags::numberIn(0.0, 1e6));
    app.add_option("--outer-lr", t.outerLr, "learning rate of the outer Nesterov step")
        ->transform(flags::numberIn(0.0, 10.0));
    app.add_option("--outer-momentum", t.outerMomentum, "momentum of the outer Nesterov step")
        ->transform(flags::numberIn(0.0, 0.999));
    app.add_option("--seed", t.seed, "seed of the initial weights and the data order")
        ->transform(flags::wholeNumberIn(0, (1ll << 53) - 1));

    app.add_option("--round-deadline", c.roundDeadlineSeconds, "seconds a round waits for its members' contributions")
        ->transform(flags::numberIn(1.0, 7 * 86400.0));
    app.add_option("--gather-timeout", c.gatherTimeoutSeconds, "seconds a round waits to gather its members")
        ->transform(flags::numberIn(0.0, 86400.0));
    app.add_option("--commit-timeout", c.commitTimeoutSeconds,
                   "seconds a round's members have to commit to their pieces (plus 80 ms a million parameters)")
        ->transform(flags::numberIn(1.0, 86400.0));
    app.add_option("--heartbeat-interval", c.heartbeatIntervalSeconds, "seconds between a peer's heartbeats")
        ->transform(flags::numberIn(0.1, 3600.0));
    app.add_option("--min-peers", c.minPeers, "peers a round needs to start")
        ->transform(flags::wholeNumberIn(1, 1'000'000));
    app.add_option("--eval-iters", c.evalIters, "validation batches per checkpoint")
        ->transform(flags::wholeNumberIn(1, 10'000));
    app.add_option("--export-every", c.exports.every,
                   "publish every N-th state as a Hugging Face folder and a GGUF file (GET /v1/model; 0: none)")
        ->transform(flags::wholeNumberIn(0, 1'000'000'000));
    app.add_option("--export-keep", c.exports.keep, "published states kept")->transform(flags::wholeNumberIn(1, 1000));
    app.add_option("--export-dtype", c.exports.dtype, "the published tensors' type")
        ->check(flags::oneOf({"float32", "bfloat16", "float16"}));
    app.add_option("--export-license", c.exports.license, "the published model card's licence (as the Hugging Face Hub names them)")
        ->check(flags::nonEmpty());
    app.add_option("--stages", c.stages, "pipeline stages the scheduler places peers on (0: it chooses)")
        ->transform(flags::wholeNumberIn(0, 1024));
    app.add_option("--schedule-seconds", c.scheduleSeconds, "budget of each scheduling search")
        ->transform(flags::numberIn(0.01, 600.0));
    app.add_option("--range-split", text.rangeSplit,
                   "the all-reduce's ranges: in proportion to each owner's measured bandwidth, or equal")
        ->check(flags::oneOf({"bandwidth", "equal"}));

    defineRoundFlags(app, c, text);
    definePipelineFlags(app, c, text);
    defineServingFlags(app, c, text);
    defineScaleFlags(app, c);
    defineTrustFlags(app, c, text);
}

// --tokenizer-model and --vocab-size go with sentencepiece, which needs exactly one of them.
Result<void> checkTokenizerFlags(const CoordinatorConfig &c)
{
    const bool model = !c.tokenizerModel.empty();
    const bool trained = c.tokenizerVocabSize > 0;
    if (c.tokenizer != TokenizerKind::SentencePiece) {
        if (model || trained)
            return makeError("--tokenizer-model and --vocab-size go with --tokenizer sentencepiece");
        return {};
    }
    if (model == trained)
        return makeError("--tokenizer sentencepiece needs a model: --tokenizer-model FILE, or --vocab-size N to train "
                         "one on the corpus");
    return {};
}

} // namespace

std::string coordinatorUsage()
{
    CoordinatorConfig c;
    c.training.minInnerSteps = 0;
    CoordinatorText text;
    CLI::App app("Hosts a SwarmTrain swarm: REST API, rounds, credit, checkpoints and data shards.",
                 "swarmtrain-coordinator");
    defineCoordinatorFlags(app, c, text);
    return app.help();
}

Result<CoordinatorConfig> parseCoordinatorArguments(const std::vector<std::string> &args)
{
    CoordinatorConfig c;
    c.training.minInnerSteps = 0; // chosen from --inner-steps below, unless given
    CoordinatorText text;
    CLI::App app;
    defineCoordinatorFlags(app, c, text);
    if (Result<void> parsed = flags::parse(app, args); !parsed)
        return parsed.error();

    // The validators let only well-formed values through.
    std::tie(c.listenHost, c.listenPort) = splitListen(text.listen).value();
    c.tokenizer = text.tokenizer == "byte"            ? TokenizerKind::Byte
                  : text.tokenizer == "sentencepiece" ? TokenizerKind::SentencePiece
                                                      : TokenizerKind::Char;
    c.tokenizerModel = text.tokenizerModel;
    c.corpus.onBadRecord = text.onBadRecord == "refuse" ? BadRecordPolicy::Refuse : BadRecordPolicy::Skip;
    c.stateDir = text.stateDir;
    c.data.assign(text.data.begin(), text.data.end());
    if (c.data.empty() && !c.migrateOnly)
        return makeError("--data is required");
    if (Result<void> tokenizer = checkTokenizerFlags(c); !tokenizer)
        return tokenizer.error();
    if (Result<void> model = finishModelFlags(c.model, text.model); !model)
        return model.error();
    if (c.training.minLr > c.training.lr)
        return makeError("--min-lr must not exceed --lr");
    if (text.cert.empty() != text.key.empty())
        return makeError("--tls-cert and --tls-key go together");
    if (!text.cert.empty() && c.tlsSelfSigned)
        return makeError("--tls-self-signed cannot be combined with --tls-cert");
    if (c.plainHttp && (c.tlsSelfSigned || !text.cert.empty()))
        return makeError("--plain-http cannot be combined with --tls-self-signed or --tls-cert");
    c.tlsSelfSigned = !c.plainHttp && text.cert.empty();
    c.tlsCert = text.cert;
    c.tlsKey = text.key;
    c.bandwidthRanges = text.rangeSplit == "bandwidth";
    TrainingSettings &t = c.training;
    t.timeBudgeted = text.rounds == "budget" || text.rounds == "async";
    t.asyncRounds = text.rounds == "async";
    if (t.minInnerSteps == 0)
        t.minInnerSteps = std::max(1, t.innerSteps / 8);
    if (t.maxInnerSteps == 0)
        t.maxInnerSteps = int(std::min<qint64>(4 * qint64(t.innerSteps), 1'000'000'000));
    if (t.minInnerSteps > t.innerSteps || t.maxInnerSteps < t.innerSteps)
        return makeError("--min-inner-steps must not exceed --inner-steps, nor --max-inner-steps fall below it");
    if (t.maxInnerSteps > 1000 * qint64(t.innerSteps))
        return makeError("--max-inner-steps may be at most 1000 times --inner-steps");
    if (Result<void> innerState = checkInnerState(c, text); !innerState)
        return innerState.error();
    c.mode = text.mode == "pipeline" ? CoordinatorConfig::Mode::Pipeline
             : text.mode == "auto"   ? CoordinatorConfig::Mode::Auto
                                     : CoordinatorConfig::Mode::Full;
    c.typicalPeerMemoryBytes = std::int64_t(text.typicalMemoryGiB * double(1ll << 30));
    c.pipeline.precision = QString::fromStdString(text.wire);
    for (const std::string &hint : text.place) {
        const std::size_t equals = hint.find('=');
        int stage = -1;
        const char *end = hint.data() + hint.size();
        if (equals == std::string::npos || equals == 0 || equals > 64
            || std::from_chars(hint.data() + equals + 1, end, stage).ptr != end || stage < 0 || stage >= 1024)
            return makeError("--place takes KEY_ID=STAGE, not \"" + hint.substr(0, 80) + "\"");
        c.placeHints[QString::fromStdString(hint.substr(0, equals))] = stage;
    }
    if (c.mode == CoordinatorConfig::Mode::Pipeline && c.stages == 1)
        return makeError("--mode pipeline needs --stages of 2 or more (0: chosen from the model)");
    c.trust.admission = text.admission == "invite"      ? Admission::Invite
                        : text.admission == "allowlist" ? Admission::Allowlist
                                                        : Admission::Open;
    if ((c.trust.admission == Admission::Allowlist) != !text.allowlist.empty())
        return makeError("--admission allowlist and --allowlist FILE go together");
    for (const auto &[flag, file, keys] : {std::tuple{"--allowlist", text.allowlist, &c.trust.allowedKeys},
                                            std::tuple{"--trusted-keys", text.trustedKeys, &c.trust.trustedKeys}}) {
        if (file.empty())
            continue;
        Result<QSet<QString>> read = readKeyList(flag, file);
        if (!read)
            return read.error();
        *keys = std::move(read).value();
    }
    return c;
}

} // namespace swarmtrain

#include "CoordinatorConfig.h"

#include "CommandLine.h"
#include "FileIo.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <limits>
#include <set>

namespace swarmtrain {

namespace {

#define SWARMTRAIN_TRY(expression)                                                                                     \
    do {                                                                                                               \
        if (Result<void> tried = (expression); !tried)                                                                 \
            return tried.error();                                                                                      \
    } while (false)

const std::set<std::string> kValueFlags = {
    "config", "listen", "state-dir", "data", "tokenizer", "n-layer", "n-head", "n-embd", "block-size", "dropout",
    "inner-steps", "batch-size", "lr", "min-lr", "warmup-iters", "lr-decay-iters", "weight-decay", "grad-clip", "outer-lr",
    "outer-momentum", "round-deadline", "gather-timeout", "heartbeat-interval", "min-peers", "shard-bytes", "seed",
    "eval-iters", "tls-cert", "tls-key"};
const std::set<std::string> kSwitches = {"tls-self-signed", "bias"};

// The --config file as flags, so both go through one parser.
Result<std::vector<std::string>> configFileArguments(const std::filesystem::path &file)
{
    Result<std::vector<std::byte>> bytes = readFileBytes(file, 1u << 20);
    if (!bytes)
        return makeError("--config: " + bytes.error().message);
    const auto *begin = reinterpret_cast<const char *>(bytes->data());
    const nlohmann::json json = nlohmann::json::parse(begin, begin + bytes->size(), nullptr, false);
    if (json.is_discarded() || !json.is_object())
        return makeError("--config: " + file.string() + " is not a JSON object");
    std::vector<std::string> args;
    for (const auto &[key, value] : json.items()) {
        if (key == "config")
            return makeError("--config: a config file cannot name another config file");
        if (kSwitches.count(key)) {
            if (!value.is_boolean())
                return makeError("--config: \"" + key + "\" must be true or false");
            if (value.get<bool>())
                args.push_back("--" + key);
            continue;
        }
        if (!kValueFlags.count(key))
            return makeError("--config: unknown key \"" + key + "\"");
        if (value.is_string())
            args.insert(args.end(), {"--" + key, value.get<std::string>()});
        else if (value.is_number())
            args.insert(args.end(), {"--" + key, value.dump()});
        else
            return makeError("--config: \"" + key + "\" must be a string or a number");
    }
    return args;
}

Result<void> parseListen(const std::string &text, CoordinatorConfig &config)
{
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return makeError("--listen expects HOST:PORT, got '" + text + "'");
    std::string host = text.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    const std::string port = text.substr(colon + 1);
    int value = -1;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value < 0 || value > 65535)
        return makeError("--listen: '" + port + "' is not a port (0 to 65535; 0 picks a free one)");
    config.listenHost = host;
    config.listenPort = value;
    return {};
}

} // namespace

std::string coordinatorUsage()
{
    return "usage: swarmtrain-coordinator --state-dir DIR --data FILE|DIR [--listen HOST:PORT] [--config FILE.json]\n"
           "       [--tokenizer char|byte] [--n-layer N] [--n-head N] [--n-embd N] [--block-size N] [--dropout X]\n"
           "       [--bias] [--inner-steps H] [--batch-size N] [--lr X] [--min-lr X] [--warmup-iters N]\n"
           "       [--lr-decay-iters N] [--weight-decay X] [--grad-clip X] [--outer-lr X] [--outer-momentum X] [--round-deadline S]\n"
           "       [--gather-timeout S] [--heartbeat-interval S] [--min-peers N] [--shard-bytes N] [--seed N]\n"
           "       [--eval-iters N] [--tls-cert FILE --tls-key FILE | --tls-self-signed]\n";
}

Result<CoordinatorConfig> parseCoordinatorArguments(const std::vector<std::string> &args)
{
    Result<CommandLine> first = CommandLine::parse(args, kValueFlags, kSwitches);
    if (!first)
        return first.error();
    std::vector<std::string> merged;
    std::string configFile;
    SWARMTRAIN_TRY(first->readString("config", configFile));
    if (!configFile.empty()) {
        Result<std::vector<std::string>> fromFile = configFileArguments(configFile);
        if (!fromFile)
            return fromFile.error();
        merged = std::move(fromFile).value();
    }
    merged.insert(merged.end(), args.begin(), args.end());
    Result<CommandLine> parsed = CommandLine::parse(merged, kValueFlags, kSwitches);
    if (!parsed)
        return parsed.error();
    const CommandLine &line = *parsed;

    CoordinatorConfig c;
    std::string listen, stateDir, data, tokenizer = "char", cert, key;
    SWARMTRAIN_TRY(line.readString("listen", listen));
    if (!listen.empty())
        SWARMTRAIN_TRY(parseListen(listen, c));
    SWARMTRAIN_TRY(line.readString("state-dir", stateDir));
    SWARMTRAIN_TRY(line.readString("data", data));
    SWARMTRAIN_TRY(line.readString("tokenizer", tokenizer));
    if (tokenizer == "byte")
        c.tokenizer = TokenizerKind::Byte;
    else if (tokenizer != "char")
        return makeError("--tokenizer must be char or byte, got '" + tokenizer + "'");
    if (stateDir.empty())
        return makeError("--state-dir is required");
    if (data.empty())
        return makeError("--data is required");
    c.stateDir = stateDir;
    c.data = data;

    SWARMTRAIN_TRY(line.read("n-layer", 1, 1024, c.model.nLayer));
    SWARMTRAIN_TRY(line.read("n-head", 1, 1024, c.model.nHead));
    SWARMTRAIN_TRY(line.read("n-embd", 1, 65536, c.model.nEmbd));
    SWARMTRAIN_TRY(line.read("block-size", 1, 1 << 20, c.model.blockSize));
    SWARMTRAIN_TRY(line.readDouble("dropout", 0.0, 0.99, c.model.dropout));
    c.model.bias = line.isSet("bias");
    if (c.model.nEmbd % c.model.nHead != 0)
        return makeError("--n-embd must be divisible by --n-head");

    TrainingSettings &t = c.training;
    SWARMTRAIN_TRY(line.read("inner-steps", 1, 1'000'000, t.innerSteps));
    SWARMTRAIN_TRY(line.read("batch-size", 1, 1 << 20, t.batchSize));
    SWARMTRAIN_TRY(line.readDouble("lr", 0.0, 10.0, t.lr));
    SWARMTRAIN_TRY(line.readDouble("min-lr", 0.0, 10.0, t.minLr));
    SWARMTRAIN_TRY(line.read("warmup-iters", 0, 1'000'000'000, t.warmupIters));
    SWARMTRAIN_TRY(line.read("lr-decay-iters", 0, 1'000'000'000'000, t.lrDecayIters));
    SWARMTRAIN_TRY(line.readDouble("weight-decay", 0.0, 10.0, t.weightDecay));
    SWARMTRAIN_TRY(line.readDouble("grad-clip", 0.0, 1e6, t.gradClip));
    SWARMTRAIN_TRY(line.readDouble("outer-lr", 0.0, 10.0, t.outerLr));
    SWARMTRAIN_TRY(line.readDouble("outer-momentum", 0.0, 0.999, t.outerMomentum));
    SWARMTRAIN_TRY(line.read("seed", 0, (1ll << 53) - 1, t.seed));
    if (t.minLr > t.lr)
        return makeError("--min-lr must not exceed --lr");

    SWARMTRAIN_TRY(line.readDouble("round-deadline", 1.0, 7 * 86400.0, c.roundDeadlineSeconds));
    SWARMTRAIN_TRY(line.readDouble("gather-timeout", 0.0, 86400.0, c.gatherTimeoutSeconds));
    SWARMTRAIN_TRY(line.readDouble("heartbeat-interval", 0.1, 3600.0, c.heartbeatIntervalSeconds));
    SWARMTRAIN_TRY(line.read("min-peers", 1, 1'000'000, c.minPeers));
    SWARMTRAIN_TRY(line.read("shard-bytes", 16, 1ll << 32, c.shardBytes));
    SWARMTRAIN_TRY(line.read("eval-iters", 1, 10'000, c.evalIters));

    SWARMTRAIN_TRY(line.readString("tls-cert", cert));
    SWARMTRAIN_TRY(line.readString("tls-key", key));
    c.tlsSelfSigned = line.isSet("tls-self-signed");
    if (cert.empty() != key.empty())
        return makeError("--tls-cert and --tls-key go together");
    if (!cert.empty() && c.tlsSelfSigned)
        return makeError("--tls-self-signed cannot be combined with --tls-cert");
    c.tlsCert = cert;
    c.tlsKey = key;
    return c;
}

} // namespace swarmtrain

// Coordinator load: the real swarmtrain-coordinator process under many simulated peers sending
// signed heartbeats through CoordinatorClient, as clients do. Prints JSON lines; figures only:
//   swarmtrain_coordinator_load [--peers 1000] [--concurrency 16] [--seconds 10 | --requests N]
//                               [--downloads N] [--n-layer L] [--n-embd E] [--coordinator PATH]
//                               [--store sqlite|postgresql://...] [--instances 1|2] [--haproxy]
//                               [--coordinator-arg=ARG ...]
// Every peer joins once (no data-plane endpoint, so no reachability probe), then C threads
// cycle through their share of the peers sending POST /v1/heartbeat back to back. Latency is
// taken by the client around each whole call: signing, a fresh connection (the client opens
// one per call, like real peers), the coordinator's work and its answer. Calls are not retried,
// so every failure is counted; more than 1% failed calls in a phase makes the exit code 1.
// With --downloads N, a last phase downloads the checkpoint N times (C at once) through
// CoordinatorClient::download and prints MiB/s and the coordinator's RSS before and at its peak; a bigger
// --n-embd/--n-layer makes a bigger checkpoint. All calls come from 127.0.0.1, so the
// coordinator's limit per address must be lifted: --coordinator-arg=--rate-limit-address=0.
// --store runs the coordinator on that store (a PostgreSQL database must be empty: each run makes
// a new swarm); --instances 2 runs two coordinators on it, with the same state dir, behind HAProxy
// with the shipped installer/coordinator/haproxy.cfg (--haproxy puts it in front of one instance
// too), and the calls go to HAProxy.
#include "CliFlags.h"
#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "Identity.h"

#include <QHostAddress>
#include <QJsonObject>
#include <QTcpServer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cmath>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <poll.h>
#include <random>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace swarmtrain;

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kMaxErrorRate = 0.01;
constexpr std::size_t kCorpusBytes = 300 * 1024;
constexpr int kStartTimeoutMs = 60'000;
constexpr auto kStopGrace = std::chrono::seconds(10);

struct Options {
    int peers = 1000;
    int concurrency = 16;
    double seconds = 10;
    long long requests = 0; // when set, exactly this many heartbeats instead of `seconds`
    int downloads = 0;
    int nLayer = 1;
    int nEmbd = 16;
    std::string coordinator = SWARMTRAIN_COORDINATOR;
    std::vector<std::string> coordinatorArgs;
    std::string store = "sqlite";
    int instances = 1;
    bool haproxy = false;
    std::string haproxyConfig = SWARMTRAIN_HAPROXY_CONFIG;
};

// Empty when --help was asked for (and printed).
Result<std::optional<Options>> parseOptions(int argc, char **argv)
{
    Options o;
    CLI::App app("The real swarmtrain-coordinator under many simulated peers' signed heartbeats. Prints JSON lines.",
                 "swarmtrain_coordinator_load");
    flags::configure(app);
    app.add_option("--peers", o.peers, "simulated peers, each joins once")
        ->transform(flags::wholeNumberIn(1, 1'000'000));
    app.add_option("--concurrency", o.concurrency, "threads sending heartbeats")
        ->transform(flags::wholeNumberIn(1, 1024));
    app.add_option("--seconds", o.seconds, "length of each phase")->transform(flags::numberIn(0.1, 86400));
    app.add_option("--requests", o.requests, "exactly this many heartbeats instead of --seconds (0: off)")
        ->transform(flags::wholeNumberIn(1, 1'000'000'000));
    app.add_option("--downloads", o.downloads, "checkpoint downloads after the heartbeats (0: none)")
        ->transform(flags::wholeNumberIn(0, 1'000'000));
    app.add_option("--n-layer", o.nLayer, "the swarm model's blocks")->transform(flags::wholeNumberIn(1, 64));
    app.add_option("--n-embd", o.nEmbd, "the swarm model's width (a multiple of 2)")
        ->transform(flags::wholeNumberIn(2, 4096));
    app.add_option("--coordinator-arg", o.coordinatorArgs, "one more flag for the coordinator (repeatable)")
        ->allow_extra_args(false);
    app.add_option("--store", o.store, "the coordinators' --store: sqlite, or an empty PostgreSQL database's URL")
        ->check(flags::nonEmpty());
    app.add_option("--instances", o.instances, "coordinator instances on the store, behind HAProxy when 2")
        ->transform(flags::wholeNumberIn(1, 2));
    app.add_flag("--haproxy", o.haproxy, "HAProxy in front of a single instance too");
    app.add_option("--haproxy-config", o.haproxyConfig, "the HAProxy configuration")->type_name("FILE");
    app.add_option("--coordinator", o.coordinator, "the swarmtrain-coordinator binary")
        ->type_name("PATH")
        ->check(flags::nonEmpty());
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (flags::helpAsked(args)) {
        std::cout << app.help();
        return std::optional<Options>();
    }
    if (Result<void> parsed = flags::parse(app, args); !parsed)
        return parsed.error();
    if (o.instances > 1 && o.store == "sqlite")
        return makeError("--instances 2 needs a shared store: --store postgresql://...");
    o.haproxy = o.haproxy || o.instances > 1;
    return std::optional<Options>(o);
}

// A fresh folder under the system temp dir, removed with everything in it on destruction.
class ScratchDir {
public:
    ScratchDir()
        : m_path(std::filesystem::temp_directory_path()
                 / ("swarmtrain-coordinator-load-" + std::to_string(::getpid())))
    {
    }
    ~ScratchDir()
    {
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }
    ScratchDir(const ScratchDir &) = delete;
    ScratchDir &operator=(const ScratchDir &) = delete;

    Result<void> create() const
    {
        std::error_code error;
        std::filesystem::create_directories(m_path, error);
        if (error)
            return makeError("cannot create " + m_path.string() + ": " + error.message());
        return {};
    }
    const std::filesystem::path &path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

// English-like text for the coordinator's shards: the benchmark needs no corpus from outside.
Result<void> writeCorpus(const std::filesystem::path &file, std::size_t bytes)
{
    static const char *words[] = {"the", "swarm", "trains", "a", "model", "on", "many", "small", "machines",
                                  "while", "people", "play", "games", "and", "sleep", "every", "peer", "helps"};
    std::mt19937 random(7);
    std::string text;
    while (text.size() < bytes) {
        text += words[random() % std::size(words)];
        text += random() % 9 == 0 ? ".\n" : " ";
    }
    std::ofstream out(file, std::ios::binary);
    out << text;
    if (!out.flush())
        return makeError("cannot write " + file.string());
    return {};
}

std::string slurp(const std::filesystem::path &file)
{
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// The coordinator child process; the first line it prints says where it listens.
class CoordinatorProcess {
public:
    CoordinatorProcess() = default;
    ~CoordinatorProcess()
    {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
    }
    CoordinatorProcess(const CoordinatorProcess &) = delete;
    CoordinatorProcess &operator=(const CoordinatorProcess &) = delete;

    // Returns the base URL, http://HOST:PORT.
    Result<std::string> start(const std::string &program, const std::vector<std::string> &args,
                              const std::filesystem::path &stderrFile)
    {
        int out[2];
        if (::pipe(out) != 0)
            return makeError("cannot make a pipe for the coordinator's output");
        m_pid = ::fork();
        if (m_pid < 0)
            return makeError("cannot start " + program);
        if (m_pid == 0)
            execChild(program, args, stderrFile, out);
        ::close(out[1]);
        const std::string line = readFirstLine(out[0]);
        ::close(out[0]);
        const std::string prefix = "listening on http://";
        if (line.rfind(prefix, 0) != 0)
            return makeError(program + " did not start (it printed '" + line + "'): " + slurp(stderrFile));
        return line.substr(std::string("listening on ").size());
    }

    // SIGTERM, then waits for a clean exit; returns the exit code.
    Result<int> stop()
    {
        ::kill(m_pid, SIGTERM);
        const Clock::time_point deadline = Clock::now() + kStopGrace;
        int status = 0;
        while (::waitpid(m_pid, &status, WNOHANG) == 0) {
            if (Clock::now() > deadline) {
                ::kill(m_pid, SIGKILL);
                ::waitpid(m_pid, &status, 0);
                m_pid = -1;
                return makeError("the coordinator did not exit within 10 s of SIGTERM");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        m_pid = -1;
        if (!WIFEXITED(status))
            return makeError("the coordinator died of signal " + std::to_string(WTERMSIG(status)));
        return WEXITSTATUS(status);
    }

private:
    [[noreturn]] static void execChild(const std::string &program, const std::vector<std::string> &args,
                                       const std::filesystem::path &stderrFile, const int out[2])
    {
        ::dup2(out[1], STDOUT_FILENO);
        const int err = ::open(stderrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(err, STDERR_FILENO);
        ::close(out[0]);
        std::vector<char *> argv{const_cast<char *>(program.c_str())};
        for (const std::string &arg : args)
            argv.push_back(const_cast<char *>(arg.c_str()));
        argv.push_back(nullptr);
        ::execv(program.c_str(), argv.data());
        ::_exit(127);
    }

    static std::string readFirstLine(int fd)
    {
        std::string text;
        pollfd wait{fd, POLLIN, 0};
        while (text.find('\n') == std::string::npos && ::poll(&wait, 1, kStartTimeoutMs) > 0) {
            char buffer[256];
            const ssize_t got = ::read(fd, buffer, sizeof buffer);
            if (got <= 0)
                break;
            text.append(buffer, std::size_t(got));
        }
        return text.substr(0, text.find('\n'));
    }

public:
    pid_t pid() const { return m_pid; }

private:
    pid_t m_pid = -1;
};

// HAProxy in front of the instances, with the shipped configuration; its addresses come from the
// environment (installer/coordinator/haproxy.cfg). Stopped with SIGTERM when destroyed.
class HaproxyFront {
public:
    HaproxyFront() = default;
    ~HaproxyFront()
    {
        if (m_pid > 0) {
            ::kill(m_pid, SIGTERM);
            ::waitpid(m_pid, nullptr, 0);
        }
    }
    HaproxyFront(const HaproxyFront &) = delete;
    HaproxyFront &operator=(const HaproxyFront &) = delete;

    // The base URL it listens on.
    Result<std::string> start(const std::string &config, const std::vector<std::string> &instances,
                              const std::filesystem::path &logFile)
    {
        const int port = freePort();
        if (port <= 0)
            return makeError("no free port for HAProxy");
        std::vector<std::string> args{"SWARMTRAIN_LISTEN=127.0.0.1:" + std::to_string(port)};
        for (std::size_t i = 0; i < 2; ++i) // the configuration names two; one instance fills both
            args.push_back("SWARMTRAIN_INSTANCE_" + std::to_string(i + 1) + "=" + instances[std::min(i, instances.size() - 1)]);
        args.insert(args.end(), {"haproxy", "-db", "-f", config});
        m_pid = ::fork();
        if (m_pid < 0)
            return makeError("cannot start haproxy");
        if (m_pid == 0) {
            const int log = ::open(logFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            ::dup2(log, STDOUT_FILENO);
            ::dup2(log, STDERR_FILENO);
            std::vector<char *> argv{const_cast<char *>("env")};
            for (const std::string &arg : args)
                argv.push_back(const_cast<char *>(arg.c_str()));
            argv.push_back(nullptr);
            ::execvp("env", argv.data());
            ::_exit(127);
        }
        const std::string url = "http://127.0.0.1:" + std::to_string(port);
        const Identity prober = Identity::generate().value(); // a client keeps a reference to it
        CoordinatorClient probe(prober, CoordinatorClientOptions{QString::fromStdString(url), {}, 1, 100, 1000});
        const Clock::time_point deadline = Clock::now() + std::chrono::seconds(30);
        while (Clock::now() < deadline) {
            if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) {
                m_pid = -1;
                return makeError("haproxy exited: " + slurp(logFile));
            }
            // Ready when a health-checked instance answers through it.
            if (probe.getJson(QStringLiteral("/v1/health")))
                return url;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        const std::string log = slurp(logFile);
        return makeError("haproxy did not pass requests on within 30 s: " + log.substr(0, 2000));
    }

private:
    static int freePort()
    {
        QTcpServer server;
        return server.listen(QHostAddress::LocalHost, 0) ? server.serverPort() : 0;
    }

    pid_t m_pid = -1;
};

// A tiny model: the benchmark loads the control plane, not training.
std::vector<std::string> coordinatorArguments(const std::filesystem::path &dir, const Options &options)
{
    std::vector<std::string> args{"--listen", "127.0.0.1:0", "--state-dir", (dir / "state").string(), "--data",
                                  (dir / "corpus.txt").string(), "--n-layer", std::to_string(options.nLayer),
                                  "--n-head", "2", "--n-embd", std::to_string(options.nEmbd), "--block-size", "16",
                                  "--batch-size", "4", "--eval-iters", "2", "--shard-tokens", "65536",
                                  // Every simulated peer comes from 127.0.0.1.
                                  "--max-peers-per-address", "0", "--max-peers-per-subnet", "0", "--plain-http",
                                  "--store", options.store, "--trusted-proxy", "127.0.0.1"};
    args.insert(args.end(), options.coordinatorArgs.begin(), options.coordinatorArgs.end());
    return args;
}

// A line of /proc/PID/status in bytes ("VmHWM": the peak resident set); 0 when unreadable.
long long processStatusBytes(pid_t pid, const std::string &field)
{
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(field + ":", 0) == 0)
            return std::stoll(line.substr(field.size() + 1)) * 1024;
    }
    return 0;
}

// The simulated peers. Each client keeps a reference to its identity, so both are built once.
struct Swarm {
    std::vector<Identity> identities;
    std::vector<std::unique_ptr<CoordinatorClient>> clients;
};

Result<Swarm> makeSwarm(int peers, const std::string &baseUrl)
{
    Swarm swarm;
    swarm.identities.reserve(std::size_t(peers));
    for (int i = 0; i < peers; ++i) {
        Result<Identity> identity = Identity::generate();
        if (!identity)
            return identity.error();
        swarm.identities.push_back(std::move(identity).value());
    }
    CoordinatorClientOptions options;
    options.baseUrl = QString::fromStdString(baseUrl);
    options.maxAttempts = 1; // a retry would hide a failure and stretch the latency
    for (const Identity &identity : swarm.identities)
        swarm.clients.push_back(std::make_unique<CoordinatorClient>(identity, options));
    return swarm;
}

// What one phase came to, over all its calls.
struct Tally {
    long long requests = 0;
    long long errors = 0;
    std::string firstError;
    std::vector<double> latenciesMs; // of the calls that succeeded
    double seconds = 0;

    void add(Tally &&other)
    {
        requests += other.requests;
        errors += other.errors;
        if (firstError.empty())
            firstError = std::move(other.firstError);
        latenciesMs.insert(latenciesMs.end(), other.latenciesMs.begin(), other.latenciesMs.end());
    }
    double errorRate() const { return requests == 0 ? 0.0 : double(errors) / double(requests); }
};

// Which peer worker `worker` calls next (its `callNumber`-th call), or nothing when the phase
// is over. Called from the worker threads at once.
using NextPeer = std::function<std::optional<std::size_t>(int worker, long long callNumber)>;
using PeerCall = std::function<Result<void>(std::size_t peer)>;

Tally runWorker(int worker, const NextPeer &next, const PeerCall &call)
{
    Tally tally;
    for (long long number = 0;; ++number) {
        const std::optional<std::size_t> peer = next(worker, number);
        if (!peer)
            break;
        const Clock::time_point start = Clock::now();
        const Result<void> done = call(*peer);
        const std::chrono::duration<double, std::milli> took = Clock::now() - start;
        ++tally.requests;
        if (done) {
            tally.latenciesMs.push_back(took.count());
        } else {
            ++tally.errors;
            if (tally.firstError.empty())
                tally.firstError = done.error().message;
        }
    }
    return tally;
}

Tally runPhase(int concurrency, const NextPeer &next, const PeerCall &call)
{
    std::vector<Tally> tallies(std::size_t(concurrency), Tally{});
    const Clock::time_point start = Clock::now();
    std::vector<std::thread> workers;
    for (int w = 0; w < concurrency; ++w)
        workers.emplace_back([&tallies, &next, &call, w] { tallies[std::size_t(w)] = runWorker(w, next, call); });
    for (std::thread &worker : workers)
        worker.join();
    Tally total;
    total.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    for (Tally &tally : tallies)
        total.add(std::move(tally));
    return total;
}

Result<void> join(CoordinatorClient &client, const Identity &identity)
{
    const JoinRequest request{identity.publicKey(), {QStringLiteral("cpu"), 1}, QString(),
                              QStringLiteral("coordinator-load-bench")};
    Result<QJsonObject> answer = client.postJson(QStringLiteral("/v1/join"), request.toJson());
    Result<JoinAnswer> joined = answer ? JoinAnswer::fromJson(*answer) : Result<JoinAnswer>(answer.error());
    if (!joined)
        return joined.error();
    if (joined->peerId != identity.keyId())
        return makeError("the join answer names another peer_id");
    return {};
}

Result<void> heartbeat(CoordinatorClient &client)
{
    const HeartbeatRequest request{QStringLiteral("training"), 0, 1000.0, {}};
    Result<QJsonObject> answer = client.postJson(QStringLiteral("/v1/heartbeat"), request.toJson());
    Result<HeartbeatAnswer> beat = answer ? HeartbeatAnswer::fromJson(*answer) : Result<HeartbeatAnswer>(answer.error());
    if (!beat)
        return beat.error();
    return {};
}

Tally joinAll(Swarm &swarm, int concurrency)
{
    std::atomic<std::size_t> cursor{0};
    const std::size_t peers = swarm.clients.size();
    const NextPeer next = [&cursor, peers](int, long long) -> std::optional<std::size_t> {
        const std::size_t peer = cursor.fetch_add(1);
        return peer < peers ? std::optional<std::size_t>(peer) : std::nullopt;
    };
    return runPhase(concurrency, next, [&swarm](std::size_t peer) {
        return join(*swarm.clients[peer], swarm.identities[peer]);
    });
}

// Worker w owns peers w, w + C, w + 2C, ... and calls them in turn.
Tally heartbeatLoad(Swarm &swarm, const Options &options, int concurrency)
{
    const auto peers = static_cast<long long>(swarm.clients.size());
    std::atomic<long long> issued{0};
    const Clock::time_point deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.seconds));
    const NextPeer next = [&, peers, concurrency](int worker, long long number) -> std::optional<std::size_t> {
        const bool more = options.requests > 0 ? issued.fetch_add(1) < options.requests : Clock::now() < deadline;
        if (!more)
            return std::nullopt;
        const long long share = (peers - worker + concurrency - 1) / concurrency;
        return std::size_t(worker + (number % share) * concurrency);
    };
    return runPhase(concurrency, next, [&swarm](std::size_t peer) { return heartbeat(*swarm.clients[peer]); });
}

// Worker w downloads the checkpoint into a file of its own until `downloads` have started.
Tally downloadLoad(Swarm &swarm, const Options &options, int concurrency, const std::filesystem::path &dir,
                   std::atomic<long long> &bytes)
{
    std::atomic<long long> issued{0};
    const NextPeer next = [&](int worker, long long) -> std::optional<std::size_t> {
        if (issued.fetch_add(1) >= options.downloads)
            return std::nullopt;
        return std::size_t(worker);
    };
    return runPhase(concurrency, next, [&](std::size_t worker) -> Result<void> {
        const std::filesystem::path file = dir / ("checkpoint-" + std::to_string(worker));
        std::error_code ignored;
        std::filesystem::remove(file, ignored);
        if (Result<void> done = swarm.clients[worker]->download(QStringLiteral("/v1/checkpoint"), file, QString()); !done)
            return done.error();
        bytes += static_cast<long long>(std::filesystem::file_size(file, ignored));
        return {};
    });
}

// Nearest-rank percentile of sorted values; null when there are none.
nlohmann::json percentile(const std::vector<double> &sorted, double p)
{
    if (sorted.empty())
        return nullptr;
    const auto rank = std::size_t(std::ceil(p / 100.0 * double(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// What every line says about the set-up (set once options are read).
std::string g_storeKind = "sqlite";
int g_instances = 1;
bool g_haproxy = false;

nlohmann::json figures(const std::string &phase, Tally &tally, int peers, int concurrency)
{
    std::sort(tally.latenciesMs.begin(), tally.latenciesMs.end());
    nlohmann::json line{{"bench", "coordinator_load"},
                        {"phase", phase},
                        {"store", g_storeKind},
                        {"instances", g_instances},
                        {"haproxy", g_haproxy},
                        {"peers", peers},
                        {"concurrency", concurrency},
                        {"requests", tally.requests},
                        {"errors", tally.errors},
                        {"seconds", tally.seconds},
                        {"requests_per_s", tally.seconds > 0 ? double(tally.requests) / tally.seconds : 0.0},
                        {"p50_ms", percentile(tally.latenciesMs, 50)},
                        {"p99_ms", percentile(tally.latenciesMs, 99)},
                        {"max_ms", percentile(tally.latenciesMs, 100)}};
    if (tally.errors > 0)
        line["first_error"] = tally.firstError;
    return line;
}

// Prints the phase's figures; false when too many of its calls failed.
bool report(const std::string &phase, Tally &tally, int peers, int concurrency)
{
    std::cout << figures(phase, tally, peers, concurrency).dump() << std::endl;
    if (tally.errorRate() <= kMaxErrorRate)
        return true;
    std::cerr << "swarmtrain_coordinator_load: " << tally.errors << " of " << tally.requests << " " << phase
              << " calls failed; the first: " << tally.firstError << "\n";
    return false;
}

// Downloads the checkpoint --downloads times; prints MiB/s and the coordinator's RSS, which is
// sampled through the phase (its start-up peak is no concern here).
bool downloadPhase(Swarm &swarm, const Options &options, int concurrency, const std::filesystem::path &dir, pid_t pid)
{
    std::atomic<long long> bytes{0};
    const long long rssBefore = processStatusBytes(pid, "VmRSS");
    std::atomic<long long> rssPeak{rssBefore};
    std::atomic<bool> sampling{true};
    std::thread sampler([&] {
        while (sampling) {
            rssPeak = std::max(rssPeak.load(), processStatusBytes(pid, "VmRSS"));
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    Tally downloads = downloadLoad(swarm, options, concurrency, dir, bytes);
    sampling = false;
    sampler.join();
    nlohmann::json line = figures("download", downloads, options.peers, concurrency);
    const double mib = double(1 << 20);
    line["mib_per_s"] = downloads.seconds > 0 ? double(bytes) / mib / downloads.seconds : 0.0;
    line["checkpoint_mib"] = downloads.requests > 0 ? double(bytes) / mib / double(downloads.requests) : 0.0;
    line["coordinator_rss_before_mib"] = double(rssBefore) / mib;
    line["coordinator_rss_peak_mib"] = double(rssPeak) / mib;
    std::cout << line.dump() << std::endl;
    return downloads.errorRate() <= kMaxErrorRate;
}

int fail(const std::string &message)
{
    std::cerr << "swarmtrain_coordinator_load: error: " << message << "\n";
    return 1;
}

int runMain(int argc, char **argv)
{
    Result<std::optional<Options>> parsed = parseOptions(argc, argv);
    if (!parsed)
        return fail(parsed.error().message);
    if (!parsed->has_value())
        return 0;
    const Options *options = &**parsed;
    g_storeKind = options->store == "sqlite" ? "sqlite" : "postgresql";
    g_instances = options->instances;
    g_haproxy = options->haproxy;
    ScratchDir dir;
    if (Result<void> made = dir.create(); !made)
        return fail(made.error().message);
    if (Result<void> written = writeCorpus(dir.path() / "corpus.txt", kCorpusBytes); !written)
        return fail(written.error().message);

    // One after the other: the first makes the swarm's state, the second finds it.
    std::vector<std::unique_ptr<CoordinatorProcess>> coordinators;
    std::vector<std::string> instanceUrls;
    for (int i = 0; i < options->instances; ++i) {
        coordinators.push_back(std::make_unique<CoordinatorProcess>());
        Result<std::string> started = coordinators.back()->start(
            options->coordinator, coordinatorArguments(dir.path(), *options),
            dir.path() / ("coordinator" + std::string(i == 0 ? "" : std::to_string(i)) + ".err"));
        if (!started)
            return fail(started.error().message);
        instanceUrls.push_back(*started);
    }
    CoordinatorProcess &coordinator = *coordinators.front();
    HaproxyFront front;
    Result<std::string> baseUrl = instanceUrls.front();
    if (options->haproxy) {
        std::vector<std::string> hostPorts;
        for (const std::string &url : instanceUrls) {
            const std::string hostPort = url.substr(std::string("http://").size());
            hostPorts.push_back(hostPort.substr(0, hostPort.find_first_of(" /")));
        }
        baseUrl = front.start(options->haproxyConfig, hostPorts, dir.path() / "haproxy.log");
        if (!baseUrl)
            return fail(baseUrl.error().message);
    }
    Result<Swarm> swarm = makeSwarm(options->peers, *baseUrl);
    if (!swarm)
        return fail(swarm.error().message);
    const int concurrency = std::min(options->concurrency, options->peers);

    Tally joins = joinAll(*swarm, concurrency);
    bool ok = report("join", joins, options->peers, concurrency);
    if (ok) {
        Tally beats = heartbeatLoad(*swarm, *options, concurrency);
        ok = report("heartbeat", beats, options->peers, concurrency);
    }
    if (ok && options->downloads > 0)
        ok = downloadPhase(*swarm, *options, concurrency, dir.path(), coordinator.pid());

    for (std::size_t i = 1; i < coordinators.size(); ++i)
        (void)coordinators[i]->stop();
    Result<int> exitCode = coordinator.stop();
    if (!exitCode)
        return fail(exitCode.error().message);
    std::cout << nlohmann::json{{"bench", "coordinator_load"}, {"phase", "shutdown"}, {"exit_code", *exitCode}}.dump()
              << std::endl;
    if (*exitCode != 0)
        return fail("the coordinator exited with code " + std::to_string(*exitCode) + ": "
                    + slurp(dir.path() / "coordinator.err"));
    return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    return runMain(argc, argv);
}

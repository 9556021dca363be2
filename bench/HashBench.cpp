// SHA-256 and checkpoint speed. Prints JSON lines; figures only, never pass/fail:
//   swarmtrain_hash_bench [--megabytes 500] [--repeats 3]
// SHA-256: throughput over one buffer with the engine's Sha256 (OpenSSL EVP) and with the
// portable FIPS 180-4 implementation it replaced, kept here only for this comparison. Checkpoint:
// save (safetensors, SHA-256, atomic write with fsync) and load (read, hash check, model and
// optimizer restored) of the 6x384 character model nanoGPT's shakespeare_char config trains.
// Each figure is the best of the repeats, which the machine's other load disturbs least.
#include "Checkpoint.h"
#include "CliFlags.h"
#include "FlatParameters.h"
#include "Sha256.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <unistd.h>

using namespace swarmtrain;

namespace {

// The engine's SHA-256 before it went through OpenSSL (FIPS 180-4, one block at a time).
class HandWrittenSha256 {
public:
    using Digest = Sha256::Digest;

    void update(std::span<const std::byte> data)
    {
        const auto *bytes = reinterpret_cast<const std::uint8_t *>(data.data());
        std::size_t size = data.size();
        m_totalBytes += size;
        if (m_buffered > 0) {
            const std::size_t take = std::min(size, m_buffer.size() - m_buffered);
            std::memcpy(m_buffer.data() + m_buffered, bytes, take);
            m_buffered += take;
            bytes += take;
            size -= take;
            if (m_buffered < m_buffer.size())
                return;
            compress(m_buffer.data());
            m_buffered = 0;
        }
        for (; size >= 64; bytes += 64, size -= 64)
            compress(bytes);
        std::memcpy(m_buffer.data(), bytes, size);
        m_buffered = size;
    }

    Digest finish()
    {
        const std::uint64_t bitLength = m_totalBytes * 8;
        std::array<std::uint8_t, 72> padding{};
        padding[0] = 0x80;
        const std::size_t padBytes = (m_buffered < 56 ? 56 : 120) - m_buffered;
        for (int i = 0; i < 8; ++i)
            padding[padBytes + i] = std::uint8_t(bitLength >> (56 - 8 * i));
        update(std::as_bytes(std::span(padding.data(), padBytes + 8)));

        Digest digest;
        for (int i = 0; i < 8; ++i) {
            for (int j = 0; j < 4; ++j)
                digest[4 * i + j] = std::uint8_t(m_state[i] >> (24 - 8 * j));
        }
        return digest;
    }

    static Digest hash(std::span<const std::byte> data)
    {
        HandWrittenSha256 sha;
        sha.update(data);
        return sha.finish();
    }

private:
    static constexpr std::array<std::uint32_t, 64> kRoundConstants = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    };

    void compress(const std::uint8_t *block)
    {
        std::array<std::uint32_t, 64> w;
        for (int i = 0; i < 16; ++i) {
            w[i] = (std::uint32_t(block[4 * i]) << 24) | (std::uint32_t(block[4 * i + 1]) << 16)
                | (std::uint32_t(block[4 * i + 2]) << 8) | std::uint32_t(block[4 * i + 3]);
        }
        for (int i = 16; i < 64; ++i) {
            const std::uint32_t s0 = std::rotr(w[i - 15], 7) ^ std::rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const std::uint32_t s1 = std::rotr(w[i - 2], 17) ^ std::rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        auto [a, b, c, d, e, f, g, h] = m_state;
        for (int i = 0; i < 64; ++i) {
            const std::uint32_t s1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
            const std::uint32_t choose = (e & f) ^ (~e & g);
            const std::uint32_t t1 = h + s1 + choose + kRoundConstants[i] + w[i];
            const std::uint32_t s0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
            const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            const std::uint32_t t2 = s0 + majority;
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        const std::array<std::uint32_t, 8> add = {a, b, c, d, e, f, g, h};
        for (int i = 0; i < 8; ++i)
            m_state[i] += add[i];
    }

    std::array<std::uint32_t, 8> m_state{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::array<std::uint8_t, 64> m_buffer{};
    std::size_t m_buffered = 0;
    std::uint64_t m_totalBytes = 0;
};

// The best of `repeats` runs of `work`, in seconds.
double bestSeconds(int repeats, const std::function<void()> &work)
{
    double best = 1e300;
    for (int i = 0; i < repeats; ++i) {
        const auto started = std::chrono::steady_clock::now();
        work();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    }
    return best;
}

void print(const nlohmann::json &line)
{
    std::cout << line.dump() << std::endl;
}

void benchSha256(std::size_t bytes, int repeats)
{
    std::vector<std::byte> buffer(bytes);
    std::mt19937_64 random(1);
    for (std::size_t i = 0; i + 8 <= buffer.size(); i += 8) {
        const std::uint64_t word = random();
        std::memcpy(buffer.data() + i, &word, 8);
    }
    Sha256::Digest handWritten{}, evp{};
    const double handWrittenSeconds = bestSeconds(repeats, [&] { handWritten = HandWrittenSha256::hash(buffer); });
    const double evpSeconds = bestSeconds(repeats, [&] { evp = Sha256::hash(buffer); });
    const double gb = double(bytes) / 1e9;
    print({{"bench", "sha256"}, {"implementation", "hand_written"}, {"bytes", bytes},
           {"seconds", handWrittenSeconds}, {"gb_per_s", gb / handWrittenSeconds}});
    print({{"bench", "sha256"}, {"implementation", "openssl_evp"}, {"bytes", bytes}, {"seconds", evpSeconds},
           {"gb_per_s", gb / evpSeconds}});
    print({{"bench", "sha256"}, {"evp_over_hand_written", handWrittenSeconds / evpSeconds},
           {"same_digest", handWritten == evp}});
}

Result<void> benchCheckpoint(int repeats)
{
    const Result<Tokenizer> tokenizer =
        Tokenizer::buildCharacter("\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
    if (!tokenizer)
        return tokenizer.error();
    ModelConfig config;
    config.vocabSize = tokenizer->vocabSize();
    config.nLayer = 6;
    config.nHead = 6;
    config.nEmbd = 384;
    config.blockSize = 256;
    torch::manual_seed(1);
    Decoder model(config);
    FlatParameters parameters(model->namedParameters());
    AdamW optimizer(parameters, AdamWOptions{});

    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("swarmtrain-hash-bench-" + std::to_string(::getpid()));
    const std::filesystem::path file = checkpointFile(dir);
    Result<void> failed = {};
    const double saveSeconds = bestSeconds(repeats, [&] {
        if (Result<void> saved = saveCheckpoint(file, *model, &optimizer, *tokenizer, TrainingState{}); !saved)
            failed = saved;
    });
    const double loadSeconds = bestSeconds(repeats, [&] {
        Result<LoadedCheckpoint> loaded = readCheckpoint(file);
        if (!loaded) {
            failed = loaded.error();
            return;
        }
        Decoder restored(loaded->config);
        FlatParameters restoredParameters(restored->namedParameters());
        AdamW restoredOptimizer(restoredParameters, AdamWOptions{});
        if (Result<void> r = restoreModel(*loaded, *restored); !r)
            failed = r;
        else if (Result<void> o = restoreOptimizer(*loaded, restoredParameters, restoredOptimizer); !o)
            failed = o;
    });
    std::error_code ignored;
    const std::uintmax_t fileBytes = std::filesystem::file_size(file, ignored);
    std::filesystem::remove_all(dir, ignored);
    if (!failed)
        return failed;
    print({{"bench", "checkpoint"}, {"model", "6x384"}, {"n_layer", config.nLayer}, {"n_head", config.nHead},
           {"n_embd", config.nEmbd}, {"block_size", config.blockSize}, {"vocab_size", config.vocabSize},
           {"params", parameters.values().numel()}, {"file_bytes", fileBytes}, {"save_ms", 1e3 * saveSeconds},
           {"load_ms", 1e3 * loadSeconds}});
    return {};
}

} // namespace

int main(int argc, char **argv)
{
    int megabytes = 500;
    int repeats = 3;
    CLI::App app("SHA-256 throughput (OpenSSL EVP against the hand-written implementation it replaced) and checkpoint "
                 "save/load time of the 6x384 model. Prints JSON lines.",
                 "swarmtrain_hash_bench");
    flags::configure(app);
    app.add_option("--megabytes", megabytes, "size of the hashed buffer (10^6 bytes)")
        ->transform(flags::wholeNumberIn(1, 16000));
    app.add_option("--repeats", repeats, "runs of each measurement; the best is printed")
        ->transform(flags::wholeNumberIn(1, 100));
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (flags::helpAsked(args)) {
        std::cout << app.help();
        return 0;
    }
    if (Result<void> parsed = flags::parse(app, args); !parsed) {
        std::cerr << "swarmtrain_hash_bench: error: " << parsed.error().message << "\n";
        return 1;
    }
    benchSha256(std::size_t(megabytes) * 1'000'000, repeats);
    if (Result<void> checkpoint = benchCheckpoint(repeats); !checkpoint) {
        std::cerr << "swarmtrain_hash_bench: error: " << checkpoint.error().message << "\n";
        return 1;
    }
    return 0;
}

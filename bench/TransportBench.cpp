// The data plane's cost of sealing (issue 16): ChaCha20-Poly1305 records against clear frames.
// Prints JSON lines:
//   {"bench":"records", ...}   seal and open alone, in memory, MB/s of plaintext
//   {"bench":"pipe", "sealed":false|true, ...}  frames through one loopback TCP connection,
//       encode (+ seal) -> socket -> (open +) FrameDecoder, both ends on this thread: the old
//       clear wire against the sealed one, everything else equal
//   {"bench":"transport", ...}  two PeerTransports (handshake included) moving tensor frames
// Each figure is the best of --repeat runs (a busy machine only ever makes a run slower).
// Usage: swarmtrain_transport_bench [--megabytes N] [--frame-kib K] [--repeat R]
#include "FrameCodec.h"
#include "FrameDecoder.h"
#include "Identity.h"
#include "PeerTransport.h"
#include "PeerTransportOptions.h"
#include "RecordOpener.h"
#include "RecordSealer.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTcpServer>
#include <QTcpSocket>

#include <algorithm>
#include <utility>

#include <cstdio>
#include <ctime>
#include <cstring>
#include <optional>
#include <string>

using namespace swarmtrain;

namespace {

struct Options {
    qint64 megabytes = 512;
    qint64 frameBytes = 4 << 20;
    int repeat = 5;
};

FrameHeader tensorHeader(qint64 bytes)
{
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_TENSOR);
    header.set_round(1);
    header.set_range_end(quint64(bytes / 4));
    header.set_dtype("F32");
    header.add_shape(bytes / 4);
    header.set_tokens(1);
    return header;
}

QByteArray filler(qint64 size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i)
        bytes[i] = char(i * 31);
    return bytes;
}

double rate(qint64 bytes, qint64 nanoseconds) { return double(bytes) / 1e6 / (double(nanoseconds) / 1e9); }

// CPU time of this process (user and system, so the kernel's loopback work too): unlike wall
// time, other processes on a busy machine barely change it.
qint64 cpuNanoseconds()
{
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return qint64(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// A run's throughput (wall clock) and CPU nanoseconds per payload byte.
struct Run {
    double mbPerSecond = 0;
    double cpuNsPerByte = 1e9;
};

Run measured(qint64 bytes, qint64 wallNs, qint64 cpuNs) { return {rate(bytes, wallNs), double(cpuNs) / double(bytes)}; }

std::pair<double, double> records(const Options &options)
{
    const QByteArray key(32, 'k');
    RecordSealer sealer = RecordSealer::create(key).value();
    RecordOpener opener = RecordOpener::create(key).value();
    const QByteArray frame = filler(options.frameBytes);
    const qint64 frames = options.megabytes * (1 << 20) / options.frameBytes;
    qint64 sealNs = 0, openNs = 0;
    for (qint64 i = 0; i < frames; ++i) {
        QElapsedTimer clock;
        clock.start();
        const QByteArray sealed = sealer.seal(frame).value();
        sealNs += clock.nsecsElapsed();
        clock.restart();
        QByteArray plaintext;
        plaintext.reserve(frame.size());
        if (!opener.feed(sealed, plaintext) || plaintext.size() != frame.size()) {
            std::fprintf(stderr, "records do not round-trip\n");
            std::exit(1);
        }
        openNs += clock.nsecsElapsed();
    }
    const qint64 bytes = frames * options.frameBytes;
    return {rate(bytes, sealNs), rate(bytes, openNs)};
}

// Frames through one loopback TCP connection, clear or sealed, both ends on this thread.
Run pipe(const Options &options, bool sealed)
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    QTcpSocket writer;
    writer.connectToHost(QHostAddress::LocalHost, server.serverPort());
    writer.waitForConnected();
    server.waitForNewConnection(10'000);
    QTcpSocket *reader = server.nextPendingConnection();
    reader->setReadBufferSize(PeerTransportOptions{}.socketReadBufferBytes); // as PeerTransport reads
    const QByteArray key(32, 'k');
    std::optional<RecordSealer> sealer;
    std::optional<RecordOpener> opener;
    if (sealed) {
        sealer = RecordSealer::create(key).value();
        opener = RecordOpener::create(key).value();
    }
    FrameDecoder decoder;
    QByteArray plaintext; // as PeerTransportConnection, one buffer for every chunk
    const QByteArray payload = filler(options.frameBytes);
    const qint64 frames = options.megabytes * (1 << 20) / options.frameBytes;
    qint64 sent = 0, received = 0;
    QEventLoop loop;
    const auto sendMore = [&] {
        while (sent < frames && writer.bytesToWrite() < 8 * options.frameBytes) {
            const QByteArray head = encodeFrameHeader(tensorHeader(payload.size()), quint64(payload.size())).value();
            if (sealer) {
                writer.write(sealer->seal(head, payload).value());
            } else {
                writer.write(head);
                writer.write(payload);
            }
            ++sent;
        }
    };
    QObject::connect(&writer, &QTcpSocket::bytesWritten, &loop, sendMore);
    QObject::connect(reader, &QTcpSocket::readyRead, &loop, [&] {
        while (reader->bytesAvailable() > 0) {
            const QByteArray chunk = reader->read(1 << 20);
            if (opener) {
                plaintext.resize(0);
                opener->feed(chunk, plaintext);
                decoder.feed(plaintext);
            } else {
                decoder.feed(chunk);
            }
            while (decoder.takeFrame())
                ++received;
        }
        if (received == frames)
            loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    const qint64 cpuStart = cpuNanoseconds();
    sendMore();
    loop.exec();
    return measured(frames * options.frameBytes, clock.nsecsElapsed(), cpuNanoseconds() - cpuStart);
}

struct TransportRun {
    double mbPerSecond = 0;
    double cpuNsPerByte = 1e9;
    double handshakeMs = 0;
    qint64 wireBytes = 0;
};

TransportRun transport(const Options &options)
{
    const Identity alice = Identity::generate().value();
    const Identity bob = Identity::generate().value();
    const PeerKeyRegistry registry = [&](const QString &keyId) -> std::optional<QByteArray> {
        if (keyId == alice.keyId())
            return alice.publicKey();
        if (keyId == bob.keyId())
            return bob.publicKey();
        return std::nullopt;
    };
    PeerTransportOptions transportOptions;
    transportOptions.limits.maxPayloadBytes = quint64(options.frameBytes);
    PeerTransport receiver(alice, registry, transportOptions);
    PeerTransport sender(bob, registry, transportOptions);
    const quint16 port = receiver.listen(QHostAddress::LocalHost).value();
    QEventLoop loop;
    QElapsedTimer handshake;
    handshake.start();
    QObject::connect(&sender, &PeerTransport::peerConnected, &loop, &QEventLoop::quit);
    (void)sender.connectToPeer(QStringLiteral("127.0.0.1:%1").arg(port), alice.keyId());
    loop.exec();
    const double handshakeMs = double(handshake.nsecsElapsed()) / 1e6;

    const QByteArray payload = filler(options.frameBytes);
    const qint64 frames = options.megabytes * (1 << 20) / options.frameBytes;
    qint64 sent = 0, received = 0;
    const auto sendMore = [&] {
        while (sent < frames && sender.send(alice.keyId(), tensorHeader(payload.size()), payload).ok())
            ++sent;
    };
    QObject::connect(&sender, &PeerTransport::writeBufferDrained, &loop, sendMore);
    QObject::connect(&receiver, &PeerTransport::frameReceived, &loop, [&] {
        if (++received == frames)
            loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    const qint64 cpuStart = cpuNanoseconds();
    sendMore();
    loop.exec();
    const Run run = measured(frames * options.frameBytes, clock.nsecsElapsed(), cpuNanoseconds() - cpuStart);
    return {run.mbPerSecond, run.cpuNsPerByte, handshakeMs, sender.bytesSent()};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--megabytes") == 0)
            options.megabytes = std::stoll(argv[i + 1]);
        else if (std::strcmp(argv[i], "--frame-kib") == 0)
            options.frameBytes = std::stoll(argv[i + 1]) * 1024;
        else if (std::strcmp(argv[i], "--repeat") == 0)
            options.repeat = std::max(1, std::stoi(argv[i + 1]));
    }
    options.frameBytes = std::max<qint64>(4, options.frameBytes / 4 * 4);
    const qint64 frames = options.megabytes * (1 << 20) / options.frameBytes;

    double seal = 0, open = 0;
    Run clear, sealedPipe;
    const auto keepBest = [](Run &best, const Run &run) {
        best.mbPerSecond = std::max(best.mbPerSecond, run.mbPerSecond);
        best.cpuNsPerByte = std::min(best.cpuNsPerByte, run.cpuNsPerByte);
    };
    TransportRun best;
    for (int run = 0; run < options.repeat; ++run) {
        const auto [s, o] = records(options);
        seal = std::max(seal, s);
        open = std::max(open, o);
        keepBest(clear, pipe(options, false));
        keepBest(sealedPipe, pipe(options, true));
        const TransportRun t = transport(options);
        best.mbPerSecond = std::max(best.mbPerSecond, t.mbPerSecond);
        best.cpuNsPerByte = std::min(best.cpuNsPerByte, t.cpuNsPerByte);
        best.handshakeMs = run == 0 ? t.handshakeMs : std::min(best.handshakeMs, t.handshakeMs);
        best.wireBytes = t.wireBytes;
    }
    std::printf("{\"bench\":\"records\",\"cipher\":\"chacha20-poly1305\",\"mib\":%lld,\"runs\":%d,\"seal_mb_s\":%.0f,"
                "\"open_mb_s\":%.0f,\"overhead_bytes_per_mib\":%lld}\n",
                options.megabytes, options.repeat, seal, open, RecordSealer::sealedSize(1 << 20) - (1 << 20));
    for (const auto &[sealed, run] : {std::pair{false, clear}, std::pair{true, sealedPipe}})
        std::printf("{\"bench\":\"pipe\",\"sealed\":%s,\"frames\":%lld,\"frame_bytes\":%lld,\"runs\":%d,\"mb_s\":%.0f,"
                    "\"cpu_ns_per_byte\":%.3f}\n",
                    sealed ? "true" : "false", frames, options.frameBytes, options.repeat, run.mbPerSecond,
                    run.cpuNsPerByte);
    // Both ends run here, so the difference is one seal plus one open per byte.
    std::printf("{\"bench\":\"pipe_cost\",\"extra_cpu_ns_per_byte\":%.3f,\"cpu_ratio\":%.2f}\n",
                sealedPipe.cpuNsPerByte - clear.cpuNsPerByte, sealedPipe.cpuNsPerByte / clear.cpuNsPerByte);
    std::printf("{\"bench\":\"transport\",\"sealed\":true,\"frames\":%lld,\"frame_bytes\":%lld,\"runs\":%d,"
                "\"mb_s\":%.0f,\"cpu_ns_per_byte\":%.3f,\"handshake_ms\":%.2f,\"wire_bytes\":%lld}\n",
                frames, options.frameBytes, options.repeat, best.mbPerSecond, best.cpuNsPerByte, best.handshakeMs,
                best.wireBytes);
    return 0;
}

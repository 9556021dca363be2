#pragma once

#include "Identity.h"
#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QSet>
#include <QString>

#include <map>

namespace swarmtrain {

// Control-plane request authentication (DESIGN.md, "Swarm protocol"): every request carries the
// peer's key id, a timestamp and an Ed25519 signature over method, path, timestamp and the
// SHA-256 of the body, in these HTTP headers.
inline constexpr char kKeyIdHeader[] = "X-Swarm-Key";
inline constexpr char kTimestampHeader[] = "X-Swarm-Timestamp";
inline constexpr char kSignatureHeader[] = "X-Swarm-Signature";

struct RequestSignature {
    QString keyId;
    qint64 timestampMs = 0;
    QByteArray signature; // raw 64 bytes; base64 in the header
};

// The exact bytes that are signed.
QByteArray signedRequestMessage(QByteArrayView method, QByteArrayView path, qint64 timestampMs, QByteArrayView body);
// The same, given the body's SHA-256 as lower-case hex (a body hashed as it streamed in).
QByteArray signedRequestMessageForHash(QByteArrayView method, QByteArrayView path, qint64 timestampMs,
                                       QByteArrayView bodySha256Hex);

// Signs a peer's requests. Timestamps only go up, so two identical requests in the same
// millisecond still differ and neither looks like a replay.
class RequestSigner {
public:
    explicit RequestSigner(const Identity &identity) : m_identity(identity) {}

    RequestSignature sign(QByteArrayView method, QByteArrayView path, QByteArrayView body, qint64 nowMs);

private:
    const Identity &m_identity;
    qint64 m_lastTimestampMs = 0;
};

// The coordinator's check: the key id matches the registered key, the signature is good, the
// timestamp is within the allowed clock skew, and the signature has not been seen before.
class RequestVerifier {
public:
    explicit RequestVerifier(qint64 maxSkewMs = 60'000) : m_maxSkewMs(maxSkewMs) {}

    Result<void> verify(QByteArrayView publicKey, QByteArrayView method, QByteArrayView path, QByteArrayView body,
                        const RequestSignature &request, qint64 nowMs);
    // verify() for a body known only by its SHA-256 (lower-case hex): a streamed upload.
    Result<void> verifyBodyHash(QByteArrayView publicKey, QByteArrayView method, QByteArrayView path,
                                QByteArrayView bodySha256Hex, const RequestSignature &request, qint64 nowMs);

    // How many accepted signatures are remembered for replay checks (bounded by the window).
    qsizetype rememberedSignatures() const { return m_seen.size(); }
    // Requests signed before `timestampMs` are refused. The coordinator sets its start time:
    // the signatures it saw before a restart are forgotten, so without this a request captured
    // then could be replayed within the skew window after it.
    void refuseSignedBefore(qint64 timestampMs) { m_notBeforeMs = timestampMs; }
    bool signedBeforeStart(const RequestSignature &request) const { return request.timestampMs < m_notBeforeMs; }

private:
    void forgetOlderThan(qint64 timestampMs);

    qint64 m_maxSkewMs;
    qint64 m_notBeforeMs = 0;
    // Signatures accepted within the skew window; older requests are refused as stale anyway.
    QSet<QByteArray> m_seen;
    std::multimap<qint64, QByteArray> m_seenByTime;
};

} // namespace swarmtrain

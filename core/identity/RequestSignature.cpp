#include "RequestSignature.h"

#include <QCryptographicHash>

#include <algorithm>
#include <cstdlib>

namespace swarmtrain {

QByteArray signedRequestMessage(QByteArrayView method, QByteArrayView path, qint64 timestampMs, QByteArrayView body)
{
    return signedRequestMessageForHash(method, path, timestampMs,
                                       QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex());
}

QByteArray signedRequestMessageForHash(QByteArrayView method, QByteArrayView path, qint64 timestampMs,
                                       QByteArrayView bodySha256Hex)
{
    QByteArray message("swarmtrain-request-v1\n");
    message += method;
    message += '\n';
    message += path;
    message += '\n';
    message += QByteArray::number(timestampMs);
    message += '\n';
    message += bodySha256Hex;
    return message;
}

RequestSignature RequestSigner::sign(QByteArrayView method, QByteArrayView path, QByteArrayView body, qint64 nowMs)
{
    m_lastTimestampMs = std::max(nowMs, m_lastTimestampMs + 1);
    return {m_identity.keyId(), m_lastTimestampMs,
            m_identity.sign(signedRequestMessage(method, path, m_lastTimestampMs, body))};
}

Result<void> RequestVerifier::verify(QByteArrayView publicKey, QByteArrayView method, QByteArrayView path,
                                     QByteArrayView body, const RequestSignature &request, qint64 nowMs)
{
    return verifyBodyHash(publicKey, method, path, QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex(),
                          request, nowMs);
}

Result<void> RequestVerifier::verifyBodyHash(QByteArrayView publicKey, QByteArrayView method, QByteArrayView path,
                                             QByteArrayView bodySha256Hex, const RequestSignature &request,
                                             qint64 nowMs)
{
    if (request.keyId != Identity::keyIdOf(publicKey))
        return makeError("the key id does not match the registered key");
    if (std::llabs(nowMs - request.timestampMs) > m_maxSkewMs)
        return makeError("stale timestamp: the request was signed "
                         + std::to_string((nowMs - request.timestampMs) / 1000) + " s from now; check the clock");
    if (!Identity::verify(publicKey, signedRequestMessageForHash(method, path, request.timestampMs, bodySha256Hex),
                          request.signature))
        return makeError("bad signature");
    if (signedBeforeStart(request))
        return makeError("signed before the coordinator started; sign it again");
    forgetOlderThan(nowMs - m_maxSkewMs);
    if (m_seen.contains(request.signature))
        return makeError("replayed request");
    m_seen.insert(request.signature);
    m_seenByTime.emplace(request.timestampMs, request.signature);
    return {};
}

void RequestVerifier::forgetOlderThan(qint64 timestampMs)
{
    auto end = m_seenByTime.lower_bound(timestampMs);
    for (auto it = m_seenByTime.begin(); it != end; ++it)
        m_seen.remove(it->second);
    m_seenByTime.erase(m_seenByTime.begin(), end);
}

} // namespace swarmtrain

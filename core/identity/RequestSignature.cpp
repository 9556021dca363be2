#include "RequestSignature.h"

#include <QCryptographicHash>

#include <algorithm>
#include <cstdlib>

namespace swarmtrain {

QByteArray signedRequestMessage(QByteArrayView method, QByteArrayView path, qint64 timestampMs, QByteArrayView body)
{
    QByteArray message("swarmtrain-request-v1\n");
    message += method;
    message += '\n';
    message += path;
    message += '\n';
    message += QByteArray::number(timestampMs);
    message += '\n';
    message += QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex();
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
    if (request.keyId != Identity::keyIdOf(publicKey))
        return makeError("the key id does not match the registered key");
    if (std::llabs(nowMs - request.timestampMs) > m_maxSkewMs)
        return makeError("stale timestamp: the request was signed "
                         + std::to_string((nowMs - request.timestampMs) / 1000) + " s from now; check the clock");
    if (!Identity::verify(publicKey, signedRequestMessage(method, path, request.timestampMs, body), request.signature))
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

#include "PeerTransportHandshake.h"

#include "Identity.h"

#include <QRandomGenerator>

#include <string>

namespace swarmtrain {

namespace {

// Domain separation: these signatures can never be mistaken for any other signed message.
constexpr char kProofContext[] = "swarmtrain peer hello proof v1";

} // namespace

QByteArray helloProofMessage(QByteArrayView otherNonce, const QString &signerKeyId, const QString &otherKeyId)
{
    QByteArray message(kProofContext, sizeof(kProofContext)); // with its NUL, as a separator
    message.append(otherNonce);
    message.append(signerKeyId.toUtf8());
    message.append('\0');
    message.append(otherKeyId.toUtf8());
    return message;
}

QByteArray makeHelloNonce()
{
    QByteArray nonce(kHelloNonceBytes, Qt::Uninitialized);
    QRandomGenerator::system()->generate(nonce.begin(), nonce.end());
    return nonce;
}

Result<void> checkHello(const wire::Hello &hello, const PeerKeyRegistry &registry, const QString &expectedKeyId)
{
    if (hello.protocol_version() != kPeerProtocolVersion)
        return makeError("unsupported protocol version " + std::to_string(hello.protocol_version()));
    if (hello.public_key().size() != std::size_t(Identity::kPublicKeyBytes))
        return makeError("public key of " + std::to_string(hello.public_key().size()) + " bytes");
    if (hello.nonce().size() != std::size_t(kHelloNonceBytes))
        return makeError("nonce of " + std::to_string(hello.nonce().size()) + " bytes");

    const QString keyId = QString::fromStdString(hello.key_id());
    const QByteArray publicKey = QByteArray::fromStdString(hello.public_key());
    if (keyId != Identity::keyIdOf(publicKey))
        return makeError("key id " + hello.key_id().substr(0, 64) + " is not the id of the public key it sent");
    if (!expectedKeyId.isEmpty() && keyId != expectedKeyId)
        return makeError("peer is " + keyId.toStdString() + ", expected " + expectedKeyId.toStdString());
    const std::optional<QByteArray> registered = registry ? registry(keyId) : std::nullopt;
    if (!registered)
        return makeError("key " + keyId.toStdString() + " is not registered with the coordinator");
    if (*registered != publicKey)
        return makeError("key " + keyId.toStdString() + " does not match the key the coordinator registered");
    return {};
}

} // namespace swarmtrain

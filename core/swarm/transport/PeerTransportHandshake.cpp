#include "PeerTransportHandshake.h"

#include "EphemeralKeyPair.h"
#include "Identity.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QtEndian>

#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <memory>
#include <string>

namespace swarmtrain {

namespace {

// Domain separation: these signatures and keys can never be mistaken for any other.
constexpr char kProofContext[] = "swarmtrain peer hello proof v2";
constexpr char kTranscriptContext[] = "swarmtrain peer transcript v2";
constexpr char kDialerToAcceptorLabel[] = "swarmtrain data plane v2 dialer to acceptor";
constexpr char kAcceptorToDialerLabel[] = "swarmtrain data plane v2 acceptor to dialer";

struct PkeyContextDeleter {
    void operator()(EVP_PKEY_CTX *context) const { EVP_PKEY_CTX_free(context); }
};

void appendField(QCryptographicHash &hash, QByteArrayView field)
{
    char length[4];
    qToBigEndian(quint32(field.size()), length);
    hash.addData(QByteArrayView(length, 4));
    hash.addData(field);
}

Result<QByteArray> hkdf(QByteArrayView secret, QByteArrayView salt, QByteArrayView label)
{
    std::unique_ptr<EVP_PKEY_CTX, PkeyContextDeleter> context(EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr));
    QByteArray key(SessionKeys::kKeyBytes, Qt::Uninitialized);
    std::size_t length = std::size_t(key.size());
    const auto bytes = [](QByteArrayView view) { return reinterpret_cast<const unsigned char *>(view.data()); };
    if (!context || EVP_PKEY_derive_init(context.get()) != 1
        || EVP_PKEY_CTX_set_hkdf_md(context.get(), EVP_sha256()) != 1
        || EVP_PKEY_CTX_set1_hkdf_salt(context.get(), bytes(salt), int(salt.size())) != 1
        || EVP_PKEY_CTX_set1_hkdf_key(context.get(), bytes(secret), int(secret.size())) != 1
        || EVP_PKEY_CTX_add1_hkdf_info(context.get(), bytes(label), int(label.size())) != 1
        || EVP_PKEY_derive(context.get(), reinterpret_cast<unsigned char *>(key.data()), &length) != 1
        || length != std::size_t(key.size()))
        return makeError("cannot derive the session keys (OpenSSL HKDF)");
    return key;
}

} // namespace

QByteArray HandshakeTranscript::digest() const
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    appendField(hash, QByteArrayView(kTranscriptContext));
    appendField(hash, dialerKeyId.toUtf8());
    appendField(hash, acceptorKeyId.toUtf8());
    appendField(hash, dialerNonce);
    appendField(hash, acceptorNonce);
    appendField(hash, dialerEphemeralKey);
    appendField(hash, acceptorEphemeralKey);
    return hash.result();
}

QByteArray helloProofMessage(QByteArrayView transcriptDigest, bool signerDialed)
{
    QByteArray message(kProofContext, sizeof(kProofContext)); // with its NUL, as a separator
    message.append(signerDialed ? 'D' : 'A');
    message.append(transcriptDigest);
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
    if (hello.ephemeral_key().size() != std::size_t(EphemeralKeyPair::kPublicKeyBytes))
        return makeError("ephemeral key of " + std::to_string(hello.ephemeral_key().size()) + " bytes");

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

Result<SessionKeys> deriveSessionKeys(QByteArrayView sharedSecret, QByteArrayView transcriptDigest)
{
    Result<QByteArray> toAcceptor = hkdf(sharedSecret, transcriptDigest, QByteArrayView(kDialerToAcceptorLabel));
    if (!toAcceptor)
        return toAcceptor.error();
    Result<QByteArray> toDialer = hkdf(sharedSecret, transcriptDigest, QByteArrayView(kAcceptorToDialerLabel));
    if (!toDialer)
        return toDialer.error();
    return SessionKeys{std::move(*toAcceptor), std::move(*toDialer)};
}

} // namespace swarmtrain

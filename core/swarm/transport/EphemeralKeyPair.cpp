#include "EphemeralKeyPair.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>

namespace swarmtrain {

namespace {

struct PkeyContextDeleter {
    void operator()(EVP_PKEY_CTX *context) const { EVP_PKEY_CTX_free(context); }
};

} // namespace

void EphemeralKeyPair::KeyDeleter::operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }

EphemeralKeyPair::EphemeralKeyPair(EVP_PKEY *key) : m_key(key) {}
EphemeralKeyPair::EphemeralKeyPair(EphemeralKeyPair &&) noexcept = default;
EphemeralKeyPair &EphemeralKeyPair::operator=(EphemeralKeyPair &&) noexcept = default;
EphemeralKeyPair::~EphemeralKeyPair() = default;

Result<EphemeralKeyPair> EphemeralKeyPair::generate()
{
    EVP_PKEY *key = EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519");
    if (!key)
        return makeError("cannot make an X25519 key (OpenSSL)");
    return EphemeralKeyPair(key);
}

QByteArray EphemeralKeyPair::publicKey() const
{
    QByteArray raw(kPublicKeyBytes, Qt::Uninitialized);
    std::size_t length = std::size_t(raw.size());
    if (EVP_PKEY_get_raw_public_key(m_key.get(), reinterpret_cast<unsigned char *>(raw.data()), &length) != 1)
        return {};
    raw.resize(qsizetype(length));
    return raw;
}

Result<QByteArray> EphemeralKeyPair::sharedSecret(QByteArrayView peerPublicKey) const
{
    if (peerPublicKey.size() != kPublicKeyBytes)
        return makeError("ephemeral key of " + std::to_string(peerPublicKey.size()) + " bytes");
    std::unique_ptr<EVP_PKEY, KeyDeleter> peer(EVP_PKEY_new_raw_public_key(
        EVP_PKEY_X25519, nullptr, reinterpret_cast<const unsigned char *>(peerPublicKey.data()), kPublicKeyBytes));
    std::unique_ptr<EVP_PKEY_CTX, PkeyContextDeleter> context(EVP_PKEY_CTX_new(m_key.get(), nullptr));
    QByteArray secret(kSharedSecretBytes, Qt::Uninitialized);
    std::size_t length = std::size_t(secret.size());
    // OpenSSL refuses an all-zero result itself; the check below does not rely on that.
    if (!peer || !context || EVP_PKEY_derive_init(context.get()) != 1
        || EVP_PKEY_derive_set_peer(context.get(), peer.get()) != 1
        || EVP_PKEY_derive(context.get(), reinterpret_cast<unsigned char *>(secret.data()), &length) != 1
        || length != std::size_t(kSharedSecretBytes))
        return makeError("the peer's ephemeral key is not a usable X25519 key");
    if (std::all_of(secret.cbegin(), secret.cend(), [](char c) { return c == 0; }))
        return makeError("the peer's ephemeral key is of small order");
    return secret;
}

} // namespace swarmtrain

#pragma once

#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <memory>

typedef struct evp_pkey_st EVP_PKEY;

namespace swarmtrain {

// A fresh X25519 key pair for one data-plane connection: its public half goes into our HELLO,
// and with the peer's it gives the shared secret the session keys are derived from. Never
// stored, so a stolen identity key cannot decrypt recorded traffic (forward secrecy).
class EphemeralKeyPair {
public:
    static constexpr int kPublicKeyBytes = 32;
    static constexpr int kSharedSecretBytes = 32;

    static Result<EphemeralKeyPair> generate();

    EphemeralKeyPair(EphemeralKeyPair &&) noexcept;
    EphemeralKeyPair &operator=(EphemeralKeyPair &&) noexcept;
    ~EphemeralKeyPair();

    QByteArray publicKey() const; // raw 32 bytes

    // X25519 with the peer's raw public key. Fails for a malformed key or one of small order
    // (an all-zero secret), which a hostile peer could send to force a known session key.
    Result<QByteArray> sharedSecret(QByteArrayView peerPublicKey) const;

private:
    struct KeyDeleter {
        void operator()(EVP_PKEY *key) const;
    };
    explicit EphemeralKeyPair(EVP_PKEY *key);

    std::unique_ptr<EVP_PKEY, KeyDeleter> m_key;
};

} // namespace swarmtrain

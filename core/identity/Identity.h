#pragma once

#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <filesystem>
#include <memory>

typedef struct evp_pkey_st EVP_PKEY;

namespace swarmtrain {

// This peer's Ed25519 key pair. Made on first run and kept in a PEM file only its owner can
// read; the public half identifies the peer to the coordinator and to other peers.
class Identity {
public:
    static constexpr int kPublicKeyBytes = 32;
    static constexpr int kSignatureBytes = 64;

    // Reads the key at `keyFile`, or makes one and stores it there if there is no such file.
    // An unreadable, damaged or group/world-readable key file is an error and is left as it is:
    // replacing it would silently change who this peer is.
    static Result<Identity> loadOrCreate(const std::filesystem::path &keyFile);
    static Result<Identity> generate();

    Identity(Identity &&) noexcept;
    Identity &operator=(Identity &&) noexcept;
    ~Identity();

    QByteArray publicKey() const; // raw 32 bytes
    QString keyId() const { return keyIdOf(publicKey()); }
    QByteArray sign(QByteArrayView message) const; // raw 64 bytes

    // Hex of the SHA-256 of a raw public key, cut to 32 characters (128 bits): how the
    // coordinator and peers name a key.
    static QString keyIdOf(QByteArrayView publicKey);
    // False for a bad signature, a malformed key, or a signature of the wrong length.
    static bool verify(QByteArrayView publicKey, QByteArrayView message, QByteArrayView signature);

private:
    struct KeyDeleter {
        void operator()(EVP_PKEY *key) const;
    };
    explicit Identity(EVP_PKEY *key);
    Result<void> save(const std::filesystem::path &keyFile) const;

    std::unique_ptr<EVP_PKEY, KeyDeleter> m_key;
};

} // namespace swarmtrain

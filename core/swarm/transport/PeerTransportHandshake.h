#pragma once

#include "Frame.h"
#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <functional>
#include <optional>

namespace swarmtrain {

// The keys the coordinator registered: a key id's raw public key, or nothing for a stranger.
using PeerKeyRegistry = std::function<std::optional<QByteArray>(const QString &keyId)>;

inline constexpr int kHelloNonceBytes = 32;
// 2: an ephemeral X25519 key in HELLO, and every frame after the proofs sealed.
inline constexpr quint32 kPeerProtocolVersion = 2;

// What both HELLOs said, named by role (the side that dialed, the side that accepted), so both
// ends compute the same bytes.
struct HandshakeTranscript {
    QString dialerKeyId;
    QString acceptorKeyId;
    QByteArray dialerNonce;
    QByteArray acceptorNonce;
    QByteArray dialerEphemeralKey;
    QByteArray acceptorEphemeralKey;

    // SHA-256 of all of the above, each field length-delimited.
    QByteArray digest() const;
};

// The mutual handshake: each side sends HELLO {key id, public key, fresh nonce, ephemeral
// X25519 key}, then HELLO_PROOF, an Ed25519 signature over helloProofMessage(transcript digest,
// signer's role). The transcript holds both nonces (the other side's fresh nonce proves the key
// is held now, so a proof cannot be replayed), both key ids (it cannot be relayed to a third
// peer) and both ephemeral keys (a man in the middle cannot swap in his own: the session keys
// are bound to the identities the coordinator registered).
QByteArray helloProofMessage(QByteArrayView transcriptDigest, bool signerDialed);

QByteArray makeHelloNonce();

// A peer's HELLO is acceptable: well-formed, its key id is the id of its public key, the
// coordinator registered that key under that id, and (when dialing) it is the peer we meant.
Result<void> checkHello(const wire::Hello &hello, const PeerKeyRegistry &registry, const QString &expectedKeyId);

// One key per direction of a connection, for ChaCha20-Poly1305.
struct SessionKeys {
    static constexpr int kKeyBytes = 32;
    QByteArray dialerToAcceptor;
    QByteArray acceptorToDialer;
};

// HKDF-SHA256 over the X25519 shared secret, salted with the transcript digest; each direction
// has its own label, so the two never share a key and nonce.
Result<SessionKeys> deriveSessionKeys(QByteArrayView sharedSecret, QByteArrayView transcriptDigest);

} // namespace swarmtrain

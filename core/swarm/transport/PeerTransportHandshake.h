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
inline constexpr quint32 kPeerProtocolVersion = 1;

// The mutual handshake: each side sends HELLO {key id, public key, fresh nonce}, then
// HELLO_PROOF, a signature over helloProofMessage(other side's nonce, own key id, other key
// id). Signing the other side's fresh nonce proves the key is held now (no replayed proof);
// naming both key ids binds the proof to this pair, so it cannot be relayed to a third peer.
QByteArray helloProofMessage(QByteArrayView otherNonce, const QString &signerKeyId, const QString &otherKeyId);

QByteArray makeHelloNonce();

// A peer's HELLO is acceptable: well-formed, its key id is the id of its public key, the
// coordinator registered that key under that id, and (when dialing) it is the peer we meant.
Result<void> checkHello(const wire::Hello &hello, const PeerKeyRegistry &registry, const QString &expectedKeyId);

} // namespace swarmtrain

#pragma once

#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <memory>

typedef struct evp_cipher_ctx_st EVP_CIPHER_CTX;

namespace swarmtrain {

// Sealed records: after the handshake, each direction of a connection is a byte stream of frames
// cut into records. A record is a 4-byte big-endian length L, then L bytes: the ChaCha20-Poly1305
// ciphertext of 1..kMaxRecordPlaintextBytes plaintext bytes and its 16-byte tag. The nonce is
// the record's number in its direction (never sent), and the length prefix is the associated
// data, so a record that is altered, dropped, replayed or reordered fails authentication.
inline constexpr int kRecordLengthBytes = 4;
inline constexpr int kRecordTagBytes = 16;
inline constexpr int kRecordNonceBytes = 12;
// Small enough that a receiver buffers little before it can authenticate, large enough that the
// per-record cost (20 bytes, one cipher reset) is noise.
inline constexpr qsizetype kMaxRecordPlaintextBytes = 64 * 1024;

// The 12-byte nonce of record number `counter`: 4 zero bytes, then the counter big-endian.
QByteArray recordNonce(quint64 counter);

// Seals one direction's stream. Records are numbered from 0; a sealer must never be reused
// with the same key for another stream.
class RecordSealer {
public:
    static Result<RecordSealer> create(QByteArrayView key);

    RecordSealer(RecordSealer &&) noexcept;
    RecordSealer &operator=(RecordSealer &&) noexcept;
    ~RecordSealer();

    // The records carrying `first` then `second` (e.g. a frame's header and payload, without
    // copying them together first).
    Result<QByteArray> seal(QByteArrayView first, QByteArrayView second = {});

    // Bytes on the wire for `plaintextBytes` bytes of stream.
    static qint64 sealedSize(qint64 plaintextBytes);
    quint64 recordsSealed() const { return m_counter; }

private:
    struct ContextDeleter {
        void operator()(EVP_CIPHER_CTX *context) const;
    };
    explicit RecordSealer(EVP_CIPHER_CTX *context);

    std::unique_ptr<EVP_CIPHER_CTX, ContextDeleter> m_context;
    quint64 m_counter = 0;
};

} // namespace swarmtrain

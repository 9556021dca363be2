#pragma once

#include "RecordSealer.h"
#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <memory>
#include <optional>

typedef struct evp_cipher_ctx_st EVP_CIPHER_CTX;

namespace swarmtrain {

// Opens the sealed records (RecordSealer.h) of one direction of a connection, in order. A record
// length over the limit is refused before anything is buffered for it, and nothing of a record
// is released before its tag checks. The first bad record breaks the stream for good.
class RecordOpener {
public:
    static Result<RecordOpener> create(QByteArrayView key);

    RecordOpener(RecordOpener &&) noexcept;
    RecordOpener &operator=(RecordOpener &&) noexcept;
    ~RecordOpener();

    // Consumes all of `bytes`, appending the plaintext of every record that authenticates to
    // `plaintext`. Returns false once the stream is broken; later input is ignored.
    bool feed(QByteArrayView bytes, QByteArray &plaintext);

    bool failed() const { return m_error.has_value(); }
    const std::optional<Error> &error() const { return m_error; }
    // Bytes of a record that has begun but not ended.
    quint64 partialRecordBytes() const { return quint64(m_record.size()); }
    quint64 recordsOpened() const { return m_counter; }

private:
    struct ContextDeleter {
        void operator()(EVP_CIPHER_CTX *context) const;
    };
    explicit RecordOpener(EVP_CIPHER_CTX *context);

    // False (and the stream broken) for a sealed length outside the limits.
    bool acceptLength(quint32 sealedBytes);
    // `record`: the length prefix and the sealed bytes, m_sealedBytes of them.
    void open(QByteArrayView record, QByteArray &plaintext);
    void fail(std::string message);

    std::unique_ptr<EVP_CIPHER_CTX, ContextDeleter> m_context;
    quint64 m_counter = 0;
    QByteArray m_record; // the length prefix, then the sealed bytes, as they arrive
    qsizetype m_sealedBytes = 0; // L, once the prefix is in
    std::optional<Error> m_error;
};

} // namespace swarmtrain

#include "RecordSealer.h"

#include <QtEndian>

#include <openssl/evp.h>

#include <algorithm>
#include <limits>

namespace swarmtrain {

namespace {

const unsigned char *bytes(const char *data) { return reinterpret_cast<const unsigned char *>(data); }
unsigned char *bytes(char *data) { return reinterpret_cast<unsigned char *>(data); }

} // namespace

QByteArray recordNonce(quint64 counter)
{
    QByteArray nonce(kRecordNonceBytes, '\0');
    qToBigEndian(counter, nonce.data() + 4);
    return nonce;
}

void RecordSealer::ContextDeleter::operator()(EVP_CIPHER_CTX *context) const { EVP_CIPHER_CTX_free(context); }

RecordSealer::RecordSealer(EVP_CIPHER_CTX *context) : m_context(context) {}
RecordSealer::RecordSealer(RecordSealer &&) noexcept = default;
RecordSealer &RecordSealer::operator=(RecordSealer &&) noexcept = default;
RecordSealer::~RecordSealer() = default;

Result<RecordSealer> RecordSealer::create(QByteArrayView key)
{
    if (key.size() != 32)
        return makeError("a record key has 32 bytes, not " + std::to_string(key.size()));
    std::unique_ptr<EVP_CIPHER_CTX, ContextDeleter> context(EVP_CIPHER_CTX_new());
    if (!context
        || EVP_EncryptInit_ex(context.get(), EVP_chacha20_poly1305(), nullptr, bytes(key.data()), nullptr) != 1)
        return makeError("cannot set up ChaCha20-Poly1305 (OpenSSL)");
    return RecordSealer(context.release());
}

qint64 RecordSealer::sealedSize(qint64 plaintextBytes)
{
    const qint64 records = (plaintextBytes + kMaxRecordPlaintextBytes - 1) / kMaxRecordPlaintextBytes;
    return plaintextBytes + records * (kRecordLengthBytes + kRecordTagBytes);
}

Result<QByteArray> RecordSealer::seal(QByteArrayView first, QByteArrayView second)
{
    const qint64 total = first.size() + second.size();
    QByteArray out(qsizetype(sealedSize(total)), Qt::Uninitialized);
    char *at = out.data();
    EVP_CIPHER_CTX *context = m_context.get();
    qint64 done = 0;
    while (done < total) {
        // 2^64 records will not be sent; refusing beats ever reusing a nonce.
        if (m_counter == std::numeric_limits<quint64>::max())
            return makeError("the session has sealed its last record");
        const qint64 size = std::min<qint64>(kMaxRecordPlaintextBytes, total - done);
        qToBigEndian(quint32(size + kRecordTagBytes), at);
        const QByteArray nonce = recordNonce(m_counter);
        int written = 0;
        if (EVP_EncryptInit_ex(context, nullptr, nullptr, nullptr, bytes(nonce.constData())) != 1
            || EVP_EncryptUpdate(context, nullptr, &written, bytes(at), kRecordLengthBytes) != 1)
            return makeError("cannot seal a record (OpenSSL)");
        char *cipher = at + kRecordLengthBytes;
        for (qint64 from = done, left = size; left > 0;) {
            const QByteArrayView source = from < first.size() ? first.sliced(from) : second.sliced(from - first.size());
            const int take = int(std::min<qint64>(source.size(), left));
            if (EVP_EncryptUpdate(context, bytes(cipher), &written, bytes(source.data()), take) != 1 || written != take)
                return makeError("cannot seal a record (OpenSSL)");
            cipher += take;
            from += take;
            left -= take;
        }
        if (EVP_EncryptFinal_ex(context, bytes(cipher), &written) != 1 || written != 0
            || EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, kRecordTagBytes, cipher) != 1)
            return makeError("cannot seal a record (OpenSSL)");
        at = cipher + kRecordTagBytes;
        done += size;
        ++m_counter;
    }
    return out;
}

} // namespace swarmtrain

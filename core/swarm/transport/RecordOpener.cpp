#include "RecordOpener.h"

#include <QtEndian>

#include <openssl/evp.h>

#include <algorithm>
#include <limits>
#include <string>

namespace swarmtrain {

namespace {

const unsigned char *bytes(const char *data) { return reinterpret_cast<const unsigned char *>(data); }
unsigned char *bytes(char *data) { return reinterpret_cast<unsigned char *>(data); }

} // namespace

void RecordOpener::ContextDeleter::operator()(EVP_CIPHER_CTX *context) const { EVP_CIPHER_CTX_free(context); }

RecordOpener::RecordOpener(EVP_CIPHER_CTX *context) : m_context(context) {}
RecordOpener::RecordOpener(RecordOpener &&) noexcept = default;
RecordOpener &RecordOpener::operator=(RecordOpener &&) noexcept = default;
RecordOpener::~RecordOpener() = default;

Result<RecordOpener> RecordOpener::create(QByteArrayView key)
{
    if (key.size() != 32)
        return makeError("a record key has 32 bytes, not " + std::to_string(key.size()));
    std::unique_ptr<EVP_CIPHER_CTX, ContextDeleter> context(EVP_CIPHER_CTX_new());
    if (!context
        || EVP_DecryptInit_ex(context.get(), EVP_chacha20_poly1305(), nullptr, bytes(key.data()), nullptr) != 1)
        return makeError("cannot set up ChaCha20-Poly1305 (OpenSSL)");
    return RecordOpener(context.release());
}

bool RecordOpener::feed(QByteArrayView input, QByteArray &plaintext)
{
    while (!m_error && !input.isEmpty()) {
        if (m_record.isEmpty() && input.size() >= kRecordLengthBytes) {
            // A whole record in the input is opened where it lies, without buffering it.
            if (!acceptLength(qFromBigEndian<quint32>(input.data())))
                break;
            const qsizetype recordBytes = kRecordLengthBytes + m_sealedBytes;
            if (input.size() >= recordBytes) {
                open(input.first(recordBytes), plaintext);
                input = input.sliced(recordBytes);
                continue;
            }
            m_record.reserve(kRecordLengthBytes + m_sealedBytes);
        }
        if (m_record.size() < kRecordLengthBytes) {
            const qsizetype take = std::min<qsizetype>(kRecordLengthBytes - m_record.size(), input.size());
            m_record.append(input.first(take));
            input = input.sliced(take);
            if (m_record.size() < kRecordLengthBytes || !acceptLength(qFromBigEndian<quint32>(m_record.constData())))
                break;
            m_record.reserve(kRecordLengthBytes + m_sealedBytes);
            continue;
        }
        const qsizetype take = std::min(kRecordLengthBytes + m_sealedBytes - m_record.size(), input.size());
        m_record.append(input.first(take));
        input = input.sliced(take);
        if (m_record.size() == kRecordLengthBytes + m_sealedBytes) {
            open(m_record, plaintext);
            m_record.resize(0); // keeps the buffer for the next record
        }
    }
    return !m_error;
}

bool RecordOpener::acceptLength(quint32 sealed)
{
    // Checked before anything is reserved for the record.
    if (sealed <= quint32(kRecordTagBytes) || sealed > quint32(kMaxRecordPlaintextBytes + kRecordTagBytes)) {
        fail("sealed record of " + std::to_string(sealed) + " bytes is outside 17.."
             + std::to_string(kMaxRecordPlaintextBytes + kRecordTagBytes));
        return false;
    }
    m_sealedBytes = qsizetype(sealed);
    return true;
}

void RecordOpener::open(QByteArrayView record, QByteArray &plaintext)
{
    if (m_counter == std::numeric_limits<quint64>::max())
        return fail("the session has opened its last record");
    const qsizetype size = m_sealedBytes - kRecordTagBytes;
    const qsizetype at = plaintext.size();
    plaintext.resize(at + size);
    const QByteArray nonce = recordNonce(m_counter);
    const char *cipher = record.data() + kRecordLengthBytes;
    unsigned char tag[kRecordTagBytes];
    std::copy_n(bytes(cipher + size), kRecordTagBytes, tag);
    EVP_CIPHER_CTX *context = m_context.get();
    int written = 0;
    const bool authentic =
        EVP_DecryptInit_ex(context, nullptr, nullptr, nullptr, bytes(nonce.constData())) == 1
        && EVP_DecryptUpdate(context, nullptr, &written, bytes(record.data()), kRecordLengthBytes) == 1
        && EVP_DecryptUpdate(context, bytes(plaintext.data() + at), &written, bytes(cipher), int(size)) == 1
        && written == size && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, kRecordTagBytes, tag) == 1
        && EVP_DecryptFinal_ex(context, bytes(plaintext.data() + at + size), &written) == 1;
    if (!authentic) {
        plaintext.truncate(at); // nothing of a forged record gets out
        return fail("sealed record " + std::to_string(m_counter)
                    + " fails authentication (altered, replayed, reordered or not from this peer)");
    }
    ++m_counter;
    m_sealedBytes = 0;
}

void RecordOpener::fail(std::string message)
{
    m_error = makeError(std::move(message));
    m_record = QByteArray();
}

} // namespace swarmtrain

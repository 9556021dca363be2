#include "Identity.h"

#include "FileIo.h"

#include <QCryptographicHash>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <sys/stat.h>

namespace swarmtrain {

namespace {

struct BioDeleter {
    void operator()(BIO *bio) const { BIO_free(bio); }
};
struct DigestContextDeleter {
    void operator()(EVP_MD_CTX *context) const { EVP_MD_CTX_free(context); }
};
using Bio = std::unique_ptr<BIO, BioDeleter>;
using DigestContext = std::unique_ptr<EVP_MD_CTX, DigestContextDeleter>;

constexpr std::uint64_t kMaxKeyFileBytes = 16 * 1024;

} // namespace

void Identity::KeyDeleter::operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }

Identity::Identity(EVP_PKEY *key) : m_key(key) {}
Identity::Identity(Identity &&) noexcept = default;
Identity &Identity::operator=(Identity &&) noexcept = default;
Identity::~Identity() = default;

Result<Identity> Identity::generate()
{
    EVP_PKEY *key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
    if (!key)
        return makeError("cannot make an Ed25519 key (OpenSSL)");
    return Identity(key);
}

Result<Identity> Identity::loadOrCreate(const std::filesystem::path &keyFile)
{
    std::error_code error;
    if (!std::filesystem::exists(keyFile, error)) {
        if (keyFile.has_parent_path()) {
            std::filesystem::create_directories(keyFile.parent_path(), error);
            if (error)
                return makeError("cannot create " + keyFile.parent_path().string() + ": " + error.message());
        }
        Result<Identity> made = generate();
        if (!made)
            return made;
        if (Result<void> saved = made->save(keyFile); !saved)
            return saved.error();
        return made;
    }

    struct stat info {};
    if (::stat(keyFile.c_str(), &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        return makeError("key file " + keyFile.string()
                         + " can be read by other users; make it private with: chmod 600 " + keyFile.string());
    }
    Result<std::vector<std::byte>> bytes = readFileBytes(keyFile, kMaxKeyFileBytes);
    if (!bytes)
        return bytes.error();
    Bio bio(BIO_new_mem_buf(bytes->data(), int(bytes->size())));
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr;
    if (!key)
        return makeError("key file " + keyFile.string() + " is damaged (not a PEM private key)");
    Identity identity(key);
    if (EVP_PKEY_get_id(key) != EVP_PKEY_ED25519)
        return makeError("key file " + keyFile.string() + " holds a key that is not Ed25519");
    return identity;
}

Result<void> Identity::save(const std::filesystem::path &keyFile) const
{
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PrivateKey(bio.get(), m_key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
        return makeError("cannot encode the key (OpenSSL)");
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    // The temp file writeFileAtomically makes is owner-only (mkstemp), and rename keeps that.
    return writeFileAtomically(keyFile, std::as_bytes(std::span(data, std::size_t(size))));
}

QByteArray Identity::publicKey() const
{
    QByteArray raw(kPublicKeyBytes, Qt::Uninitialized);
    std::size_t length = std::size_t(raw.size());
    EVP_PKEY_get_raw_public_key(m_key.get(), reinterpret_cast<unsigned char *>(raw.data()), &length);
    raw.resize(qsizetype(length));
    return raw;
}

QByteArray Identity::sign(QByteArrayView message) const
{
    DigestContext context(EVP_MD_CTX_new());
    QByteArray signature(kSignatureBytes, Qt::Uninitialized);
    std::size_t length = std::size_t(signature.size());
    if (!context || EVP_DigestSignInit(context.get(), nullptr, nullptr, nullptr, m_key.get()) != 1
        || EVP_DigestSign(context.get(), reinterpret_cast<unsigned char *>(signature.data()), &length,
                          reinterpret_cast<const unsigned char *>(message.data()), std::size_t(message.size()))
               != 1) {
        return {};
    }
    signature.resize(qsizetype(length));
    return signature;
}

QString Identity::keyIdOf(QByteArrayView publicKey)
{
    return QString::fromLatin1(QCryptographicHash::hash(publicKey, QCryptographicHash::Sha256).toHex().left(32));
}

bool Identity::verify(QByteArrayView publicKey, QByteArrayView message, QByteArrayView signature)
{
    if (publicKey.size() != kPublicKeyBytes || signature.size() != kSignatureBytes)
        return false;
    std::unique_ptr<EVP_PKEY, KeyDeleter> key(EVP_PKEY_new_raw_public_key(
        EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char *>(publicKey.data()), kPublicKeyBytes));
    DigestContext context(EVP_MD_CTX_new());
    return key && context && EVP_DigestVerifyInit(context.get(), nullptr, nullptr, nullptr, key.get()) == 1
           && EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char *>(signature.data()),
                               std::size_t(signature.size()),
                               reinterpret_cast<const unsigned char *>(message.data()), std::size_t(message.size()))
                  == 1;
}

} // namespace swarmtrain

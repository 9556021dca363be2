#include "TlsIdentity.h"

#include "FileIo.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <QCryptographicHash>
#include <QDateTime>

#include <memory>

namespace swarmtrain {

namespace {

struct BioFree {
    void operator()(BIO *bio) const { BIO_free(bio); }
};
struct X509Free {
    void operator()(X509 *x) const { X509_free(x); }
};
struct PkeyFree {
    void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

QByteArray bioContents(BIO *bio)
{
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    return QByteArray(data, qsizetype(size));
}

Result<QByteArray> readPem(const std::filesystem::path &file)
{
    Result<std::vector<std::byte>> bytes = readFileBytes(file, 1u << 20);
    if (!bytes)
        return bytes.error();
    return QByteArray(reinterpret_cast<const char *>(bytes->data()), qsizetype(bytes->size()));
}

Result<void> writePem(const std::filesystem::path &file, const QByteArray &pem, std::filesystem::perms perms)
{
    if (Result<void> written = writeFileAtomically(
            file, std::span<const std::byte>(reinterpret_cast<const std::byte *>(pem.constData()), std::size_t(pem.size())));
        !written)
        return written;
    std::error_code ec;
    std::filesystem::permissions(file, perms, ec);
    if (ec)
        return makeError("cannot restrict " + file.string() + ": " + ec.message());
    return {};
}

} // namespace

Result<QString> TlsIdentity::fingerprintOf(const QByteArray &certificatePem)
{
    BioPtr bio(BIO_new_mem_buf(certificatePem.constData(), int(certificatePem.size())));
    X509Ptr certificate(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!certificate)
        return makeError("the TLS certificate is not a PEM certificate");
    EVP_PKEY *key = X509_get0_pubkey(certificate.get());
    unsigned char *der = nullptr;
    const int length = key ? i2d_PUBKEY(key, &der) : -1;
    if (length <= 0)
        return makeError("cannot read the TLS certificate's public key");
    const QByteArray spki(reinterpret_cast<const char *>(der), length);
    OPENSSL_free(der);
    return QStringLiteral("sha256//")
           + QString::fromLatin1(QCryptographicHash::hash(spki, QCryptographicHash::Sha256).toBase64());
}

Result<TlsIdentity> TlsIdentity::load(const std::filesystem::path &certFile, const std::filesystem::path &keyFile)
{
    Result<QByteArray> certificate = readPem(certFile);
    if (!certificate)
        return certificate.error();
    Result<QByteArray> key = readPem(keyFile);
    if (!key)
        return key.error();
    Result<QString> fingerprint = fingerprintOf(*certificate);
    if (!fingerprint)
        return makeError(certFile.string() + ": " + fingerprint.error().message);
    return TlsIdentity{*certificate, *key, *fingerprint};
}

Result<TlsIdentity> TlsIdentity::loadOrCreateSelfSigned(const std::filesystem::path &dir)
{
    const std::filesystem::path certFile = dir / "tls-cert.pem";
    const std::filesystem::path keyFile = dir / "tls-key.pem";
    std::error_code ec;
    if (std::filesystem::exists(certFile, ec) && std::filesystem::exists(keyFile, ec))
        return load(certFile, keyFile);

    PkeyPtr key(EVP_EC_gen("P-256"));
    X509Ptr certificate(X509_new());
    if (!key || !certificate)
        return makeError("cannot make a TLS key");
    X509_set_version(certificate.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate.get()), long(QDateTime::currentSecsSinceEpoch() & 0x7fffffff));
    X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(certificate.get()), 10L * 365 * 24 * 3600);
    X509_set_pubkey(certificate.get(), key.get());
    X509_NAME *name = X509_get_subject_name(certificate.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char *>("swarmtrain-coordinator"),
                               -1, -1, 0);
    X509_set_issuer_name(certificate.get(), name);
    if (X509_sign(certificate.get(), key.get(), EVP_sha256()) <= 0)
        return makeError("cannot sign the TLS certificate");

    BioPtr keyBio(BIO_new(BIO_s_mem()));
    BioPtr certBio(BIO_new(BIO_s_mem()));
    if (!PEM_write_bio_PrivateKey(keyBio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)
        || !PEM_write_bio_X509(certBio.get(), certificate.get()))
        return makeError("cannot encode the TLS key");
    const QByteArray keyPem = bioContents(keyBio.get());
    const QByteArray certPem = bioContents(certBio.get());
    using std::filesystem::perms;
    if (Result<void> written = writePem(keyFile, keyPem, perms::owner_read | perms::owner_write); !written)
        return written.error();
    if (Result<void> written = writePem(certFile, certPem, perms::owner_read | perms::owner_write | perms::group_read
                                                               | perms::others_read);
        !written)
        return written.error();
    return load(certFile, keyFile);
}

} // namespace swarmtrain

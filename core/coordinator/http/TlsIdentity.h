#pragma once

#include "Result.h"

#include <QByteArray>
#include <QString>

#include <filesystem>

namespace swarmtrain {

// The coordinator's TLS certificate and key (PEM), and the pin clients check it with.
struct TlsIdentity {
    QByteArray certificatePem;
    QByteArray privateKeyPem;
    // "sha256//BASE64" of the certificate's SubjectPublicKeyInfo (libcurl's
    // CURLOPT_PINNEDPUBLICKEY format), which survives re-issuing a certificate for the same key.
    QString fingerprint;

    static Result<TlsIdentity> load(const std::filesystem::path &certFile, const std::filesystem::path &keyFile);
    // Makes a P-256 key and a self-signed certificate in `dir` the first time; re-uses them later.
    static Result<TlsIdentity> loadOrCreateSelfSigned(const std::filesystem::path &dir);
    static Result<QString> fingerprintOf(const QByteArray &certificatePem);
};

} // namespace swarmtrain

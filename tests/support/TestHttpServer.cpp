#include "TestHttpServer.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <arpa/inet.h>
#include <csignal>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

#include <QCryptographicHash>

namespace swarmtrain::test {

namespace {

constexpr qsizetype kMaxHeadBytes = 64 * 1024;

QByteArray toPem(int (*write)(BIO *, void *), void *object)
{
    BIO *bio = BIO_new(BIO_s_mem());
    write(bio, object);
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    QByteArray pem(data, qsizetype(size));
    BIO_free(bio);
    return pem;
}

int listenOnLoopback(quint16 *port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        throw std::runtime_error("socket() failed");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 || ::listen(fd, 16) != 0
        || ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    *port = ntohs(address.sin_port);
    return fd;
}

} // namespace

TestTlsCertificate TestTlsCertificate::selfSigned()
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *certificate = X509_new();
    X509_set_version(certificate, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1);
    X509_gmtime_adj(X509_getm_notBefore(certificate), -3600);
    X509_gmtime_adj(X509_getm_notAfter(certificate), 24 * 3600);
    X509_set_pubkey(certificate, key);
    X509_NAME *name = X509_get_subject_name(certificate);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char *>("127.0.0.1"), -1,
                               -1, 0);
    X509_set_issuer_name(certificate, name);
    X509_sign(certificate, key, EVP_sha256());

    TestTlsCertificate result;
    result.certificatePem = toPem([](BIO *bio, void *x) { return PEM_write_bio_X509(bio, static_cast<X509 *>(x)); },
                                  certificate);
    result.privateKeyPem = toPem(
        [](BIO *bio, void *k) {
            return PEM_write_bio_PrivateKey(bio, static_cast<EVP_PKEY *>(k), nullptr, nullptr, 0, nullptr, nullptr);
        },
        key);
    unsigned char *der = nullptr;
    const int derLength = i2d_PUBKEY(key, &der);
    const QByteArray spki(reinterpret_cast<const char *>(der), derLength);
    OPENSSL_free(der);
    result.pin = "sha256//" + QCryptographicHash::hash(spki, QCryptographicHash::Sha256).toBase64();
    X509_free(certificate);
    EVP_PKEY_free(key);
    return result;
}

// One accepted socket, plain or TLS.
class TestHttpServer::Connection {
public:
    Connection(int fd, SSL_CTX *tls) : m_fd(fd)
    {
        // A client that stalls must not wedge the server thread.
        timeval timeout{5, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        if (tls) {
            m_ssl = SSL_new(tls);
            SSL_set_fd(m_ssl, fd);
            m_ok = SSL_accept(m_ssl) == 1;
        }
    }
    ~Connection()
    {
        if (m_ssl)
            SSL_free(m_ssl);
        ::shutdown(m_fd, SHUT_RDWR);
        ::close(m_fd);
    }
    bool ok() const { return m_ok; }

    qsizetype read(char *data, qsizetype size)
    {
        if (m_ssl)
            return SSL_read(m_ssl, data, int(size));
        return ::recv(m_fd, data, std::size_t(size), 0);
    }
    bool writeAll(const char *data, qsizetype size)
    {
        while (size > 0) {
            const qsizetype wrote = m_ssl ? SSL_write(m_ssl, data, int(size))
                                          : ::send(m_fd, data, std::size_t(size), MSG_NOSIGNAL);
            if (wrote <= 0)
                return false;
            data += wrote;
            size -= wrote;
        }
        return true;
    }

private:
    int m_fd;
    SSL *m_ssl = nullptr;
    bool m_ok = true;
};

TestHttpServer::TestHttpServer(Handler handler, std::optional<TestTlsCertificate> tls) : m_handler(std::move(handler))
{
    std::signal(SIGPIPE, SIG_IGN); // SSL_write to a client that hung up
    if (tls) {
        m_tls = SSL_CTX_new(TLS_server_method());
        BIO *certificateBio = BIO_new_mem_buf(tls->certificatePem.constData(), int(tls->certificatePem.size()));
        BIO *keyBio = BIO_new_mem_buf(tls->privateKeyPem.constData(), int(tls->privateKeyPem.size()));
        X509 *certificate = PEM_read_bio_X509(certificateBio, nullptr, nullptr, nullptr);
        EVP_PKEY *key = PEM_read_bio_PrivateKey(keyBio, nullptr, nullptr, nullptr);
        const bool loaded = certificate && key && SSL_CTX_use_certificate(m_tls, certificate) == 1
                            && SSL_CTX_use_PrivateKey(m_tls, key) == 1;
        X509_free(certificate);
        EVP_PKEY_free(key);
        BIO_free(certificateBio);
        BIO_free(keyBio);
        if (!loaded)
            throw std::runtime_error("cannot load the test certificate");
    }
    m_listenFd = listenOnLoopback(&m_port);
    if (::pipe2(m_wakePipe, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe2() failed");
    m_thread = std::thread([this] { serve(); });
}

TestHttpServer::~TestHttpServer()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    const char byte = 0;
    [[maybe_unused]] const ssize_t woken = ::write(m_wakePipe[1], &byte, 1);
    m_thread.join();
    ::close(m_listenFd);
    ::close(m_wakePipe[0]);
    ::close(m_wakePipe[1]);
    if (m_tls)
        SSL_CTX_free(m_tls);
}

QString TestHttpServer::baseUrl() const
{
    const QString scheme = m_tls ? QStringLiteral("https") : QStringLiteral("http");
    return QStringLiteral("%1://127.0.0.1:%2").arg(scheme).arg(m_port);
}

QList<TestHttpRequest> TestHttpServer::requests() const
{
    std::lock_guard lock(m_mutex);
    return m_requests;
}

quint16 TestHttpServer::unusedPort()
{
    quint16 port = 0;
    ::close(listenOnLoopback(&port));
    return port;
}

void TestHttpServer::serve()
{
    while (!m_stop) {
        pollfd fds[2] = {{m_listenFd, POLLIN, 0}, {m_wakePipe[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0 || (fds[1].revents & POLLIN))
            continue;
        const int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
            ++m_connections;
            handle(fd);
        }
    }
}

bool TestHttpServer::pause(int ms)
{
    std::unique_lock lock(m_mutex);
    return !m_wake.wait_for(lock, std::chrono::milliseconds(ms), [this] { return m_stop.load(); });
}

void TestHttpServer::handle(int fd)
{
    Connection connection(fd, m_tls);
    if (!connection.ok())
        return;

    QByteArray data;
    char buffer[16 * 1024];
    qsizetype headEnd = -1;
    while ((headEnd = data.indexOf("\r\n\r\n")) < 0) {
        const qsizetype got = connection.read(buffer, sizeof buffer);
        if (got <= 0 || data.size() > kMaxHeadBytes)
            return;
        data.append(buffer, got);
    }
    TestHttpRequest request;
    const QList<QByteArray> lines = data.left(headEnd).split('\n');
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    request.method = requestLine.value(0);
    request.target = requestLine.value(1);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        if (colon > 0)
            request.headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
    }
    request.body = data.mid(headEnd + 4);
    const qsizetype contentLength = request.header("content-length").toLongLong();
    while (request.body.size() < contentLength) {
        const qsizetype got = connection.read(buffer, sizeof buffer);
        if (got <= 0)
            return;
        request.body.append(buffer, got);
    }
    {
        std::lock_guard lock(m_mutex);
        m_requests.append(request);
    }

    const TestHttpResponse response = m_handler(request);
    if (response.hangUpWithoutAnswer)
        return;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(response.status) + " Scripted\r\n";
    for (const auto &[name, value] : response.headers)
        head += name + ": " + value + "\r\n";
    head += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\nConnection: close\r\n\r\n";
    if (!connection.writeAll(head.constData(), head.size()))
        return;
    const qsizetype limit = response.sendOnlyBytes >= 0 ? std::min(response.sendOnlyBytes, response.body.size())
                                                        : response.body.size();
    const qsizetype chunk = response.chunkBytes > 0 ? response.chunkBytes : std::max<qsizetype>(limit, 1);
    for (qsizetype sent = 0; sent < limit; sent += chunk) {
        if (sent > 0 && response.chunkPauseMs > 0 && !pause(response.chunkPauseMs))
            return;
        if (!connection.writeAll(response.body.constData() + sent, std::min(chunk, limit - sent)))
            return;
    }
}

} // namespace swarmtrain::test

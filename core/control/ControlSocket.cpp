#include "ControlSocket.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <string>

#ifndef _WIN32
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#endif

namespace swarmtrain {

namespace {

// The socket's name: the state folder's canonical path, hashed (a Unix socket path has room for
// about 100 bytes, a state folder may be longer).
QString socketName(const std::filesystem::path &stateDir)
{
    std::error_code ec;
    std::filesystem::path path = std::filesystem::weakly_canonical(std::filesystem::absolute(stateDir, ec), ec);
    if (ec)
        path = std::filesystem::absolute(stateDir, ec);
    const QByteArray digest =
        QCryptographicHash::hash(QByteArray::fromStdString(path.generic_string()), QCryptographicHash::Sha256);
    return QStringLiteral("swarmtrain-") + QString::fromLatin1(digest.toHex().left(16));
}

#ifndef _WIN32
// Makes `dir` (mode 0700) or checks the one there: ours, a real folder, closed to others.
Result<void> privateDirectory(const QString &dir)
{
    const QByteArray path = QFile::encodeName(dir);
    if (::mkdir(path.constData(), 0700) != 0 && errno != EEXIST)
        return makeError("cannot make " + dir.toStdString() + ": " + std::strerror(errno));
    struct stat info {};
    if (::lstat(path.constData(), &info) != 0)
        return makeError("cannot read " + dir.toStdString() + ": " + std::strerror(errno));
    if (!S_ISDIR(info.st_mode))
        return makeError(dir.toStdString() + " is not a folder");
    if (info.st_uid != ::getuid())
        return makeError(dir.toStdString() + " belongs to another user; the control socket cannot live there");
    if ((info.st_mode & 0077) != 0)
        return makeError(dir.toStdString() + " is open to other users (mode " +
                         QString::number(info.st_mode & 0777, 8).toStdString() + "); it must be 0700");
    return {};
}
#endif

} // namespace

Result<QString> controlSocketPath(const std::filesystem::path &stateDir)
{
#ifdef _WIN32
    return socketName(stateDir); // a named pipe; QLocalServer::UserAccessOption limits it to this user
#else
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    const QString dir = !runtime.isEmpty() && QDir(runtime).exists()
                            ? runtime + QStringLiteral("/swarmtrain")
                            : QDir::tempPath() + QStringLiteral("/swarmtrain-") + QString::number(::getuid());
    if (Result<void> made = privateDirectory(dir); !made)
        return made.error();
    return dir + QLatin1Char('/') + socketName(stateDir) + QStringLiteral(".sock");
#endif
}

std::optional<quint32> peerUserId(qintptr socketDescriptor)
{
#if defined(__linux__)
    struct ucred credentials {};
    socklen_t size = sizeof credentials;
    if (::getsockopt(int(socketDescriptor), SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0)
        return std::nullopt;
    return quint32(credentials.uid);
#elif !defined(_WIN32)
    uid_t uid = 0;
    gid_t gid = 0;
    if (::getpeereid(int(socketDescriptor), &uid, &gid) != 0)
        return std::nullopt;
    return quint32(uid);
#else
    (void)socketDescriptor;
    return std::nullopt;
#endif
}

quint32 currentUserId()
{
#ifdef _WIN32
    return 0;
#else
    return quint32(::getuid());
#endif
}

} // namespace swarmtrain

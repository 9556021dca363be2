#pragma once

#include "HttpReply.h"
#include "HttpRequest.h"

#include <QByteArray>
#include <QString>

#include <filesystem>

namespace swarmtrain {

// "bytes=N-" or "bytes=N-M" of a file of `size` bytes as [begin, end); false when unsatisfiable
// or malformed (several ranges included).
bool parseByteRange(const QByteArray &header, qint64 size, qint64 &begin, qint64 &end);

// A file as a download: whole, or the part a Range header asks for (206, or 416 when it
// cannot be served), with its SHA-256 in X-Content-SHA256 so resumed downloads can be checked,
// and as its ETag; 304 with no body when If-None-Match names that ETag (the asker holds it).
// The reply holds the open file; its bytes are read only as the connection sends them.
HttpReply fileDownload(const std::filesystem::path &file, const QString &sha256, const HttpRequest &request,
                       QList<QPair<QByteArray, QByteArray>> headers);

} // namespace swarmtrain

#include "FileDownload.h"

#include "QtText.h"

#include <QFile>

#include <algorithm>

namespace swarmtrain {

bool parseByteRange(const QByteArray &header, qint64 size, qint64 &begin, qint64 &end)
{
    if (!header.startsWith("bytes=") || header.contains(','))
        return false;
    const QByteArray spec = header.mid(6).trimmed();
    const qsizetype dash = spec.indexOf('-');
    if (dash <= 0)
        return false;
    bool ok = false;
    begin = spec.left(dash).toLongLong(&ok);
    if (!ok || begin < 0 || begin >= size)
        return false;
    const QByteArray last = spec.mid(dash + 1);
    end = size;
    if (!last.isEmpty()) {
        const qint64 lastByte = last.toLongLong(&ok);
        if (!ok || lastByte < begin)
            return false;
        end = std::min(size, lastByte + 1);
    }
    return true;
}

HttpReply fileDownload(const std::filesystem::path &file, const QString &sha256, const HttpRequest &request,
                       QList<QPair<QByteArray, QByteArray>> headers)
{
    const QByteArray etag = '"' + sha256.toLatin1() + '"';
    if (!sha256.isEmpty())
        headers.append(qMakePair(QByteArray("ETag"), etag));
    const QList<QByteArray> held = request.value("If-None-Match").split(',');
    if (!sha256.isEmpty() && std::any_of(held.begin(), held.end(), [&](const QByteArray &tag) { return tag.trimmed() == etag; })) {
        HttpReply unchanged;
        unchanged.status = 304;
        unchanged.headers = std::move(headers);
        unchanged.headers.append(qMakePair(QByteArray("X-Content-SHA256"), sha256.toLatin1()));
        return unchanged;
    }
    const QByteArray rangeHeader = request.value("Range");
    auto input = std::make_shared<QFile>(toQString(file));
    if (!input->open(QIODevice::ReadOnly))
        return HttpReply::error(500, QStringLiteral("cannot read the file"));
    const qint64 size = input->size();
    qint64 begin = 0;
    qint64 end = size;
    HttpReply reply;
    reply.contentType = "application/octet-stream";
    reply.headers = std::move(headers);
    reply.headers.append(qMakePair(QByteArray("X-Content-SHA256"), sha256.toLatin1()));
    reply.headers.append(qMakePair(QByteArray("Accept-Ranges"), QByteArray("bytes")));
    if (!rangeHeader.isEmpty()) {
        if (!parseByteRange(rangeHeader, size, begin, end)) {
            HttpReply refused = HttpReply::error(416, QStringLiteral("unsatisfiable range %1 of a %2-byte file")
                                                          .arg(QString::fromLatin1(rangeHeader))
                                                          .arg(size));
            refused.headers.append(qMakePair(QByteArray("Content-Range"), "bytes */" + QByteArray::number(size)));
            return refused;
        }
        reply.status = 206;
        reply.headers.append(qMakePair(QByteArray("Content-Range"), "bytes " + QByteArray::number(begin) + "-"
                                                                         + QByteArray::number(end - 1) + "/"
                                                                         + QByteArray::number(size)));
    }
    // Streamed by the connection as the client reads; the open file outlives a later rename.
    reply.file = HttpReply::FilePart{std::move(input), begin, end - begin};
    return reply;
}

} // namespace swarmtrain

#include "StatusPage.h"

#include <QCryptographicHash>
#include <QFile>

namespace swarmtrain {

namespace {

// The CSP source that allows exactly the inline block between `open` and `close` (its SHA-256),
// so that no other script or style, say one a peer's name smuggled in, could run.
QByteArray inlineHash(const QByteArray &page, const QByteArray &open, const QByteArray &close)
{
    const qsizetype start = page.indexOf(open);
    const qsizetype end = start < 0 ? -1 : page.indexOf(close, start + open.size());
    if (end < 0)
        return "'none'";
    // A browser hashes the block as its parser saw it, with line ends made LF (a Windows checkout
    // may have given the file CRLF).
    QByteArray block = page.mid(start + open.size(), end - start - open.size());
    block.replace("\r\n", "\n").replace('\r', '\n');
    return "'sha256-" + QCryptographicHash::hash(block, QCryptographicHash::Sha256).toBase64() + "'";
}

HttpReply pageReply()
{
    // status-page.html is compiled into the library with qt_add_resources (CMakeLists.txt): one
    // file that can be edited and viewed in a browser as it is, and no file to find at run time.
    QFile file(QStringLiteral(":/coordinator/status-page.html"));
    if (!file.open(QIODevice::ReadOnly))
        return HttpReply::error(500, QStringLiteral("the status page is missing from this build"));
    HttpReply reply;
    reply.body = file.readAll();
    reply.contentType = "text/html; charset=utf-8";
    // Nothing but the page's own script and style, and its reads of /v1/status; no frames, no
    // forms, no base URL, no referrer: the page is public and shows names strangers chose.
    const QByteArray policy = "default-src 'none'; script-src " + inlineHash(reply.body, "<script>", "</script>")
                              + "; style-src " + inlineHash(reply.body, "<style>", "</style>")
                              + "; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
                                "frame-ancestors 'none'";
    reply.headers = {{"Content-Security-Policy", policy},
                     {"X-Content-Type-Options", "nosniff"},
                     {"Referrer-Policy", "no-referrer"},
                     {"X-Frame-Options", "DENY"},
                     {"Cache-Control", "no-cache"}};
    return reply;
}

} // namespace

StatusPage::StatusPage(CoordinatorContext context) : EndpointGroup(context), m_reply(pageReply()) {}

void StatusPage::addRoutes(RouteTable &routes)
{
    // Public like /v1/status, and under the same per-address rate limit the table applies.
    routes.add(route(QHttpServerRequest::Method::Get, "/", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(m_reply); }));
}

} // namespace swarmtrain

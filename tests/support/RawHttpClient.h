#pragma once

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <map>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace swarmtrain::test {

// A blocking HTTP/1.1 client on a raw socket, for tests that must send what no library would:
// huge heads, lying lengths, pipelined requests, half a request. Every wait gives up after
// `timeoutSeconds` (generous: a busy machine is slow, a broken server hangs forever).
class RawHttpClient {
public:
    struct Response {
        int status = 0; // 0: the connection ended (or timed out) before a whole answer came
        std::map<std::string, std::string> headers; // names in lower case
        std::string body;
    };

    explicit RawHttpClient(int timeoutSeconds = 120) : m_timeoutSeconds(timeoutSeconds) {}
    ~RawHttpClient() { close(); }
    RawHttpClient(const RawHttpClient &) = delete;
    RawHttpClient &operator=(const RawHttpClient &) = delete;

    // Connects to 127.0.0.1:`port`, from the loopback address `from` (another 127.x address
    // counts as another client).
    bool connect(int port, const char *from = "127.0.0.1")
    {
        close();
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        if (m_fd < 0)
            return false;
        timeval timeout{m_timeoutSeconds, 0};
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        ::setsockopt(m_fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        sockaddr_in local{};
        local.sin_family = AF_INET;
        ::inet_pton(AF_INET, from, &local.sin_addr);
        if (::bind(m_fd, reinterpret_cast<sockaddr *>(&local), sizeof local) != 0)
            return false;
        sockaddr_in remote{};
        remote.sin_family = AF_INET;
        remote.sin_port = htons(std::uint16_t(port));
        ::inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
        return ::connect(m_fd, reinterpret_cast<sockaddr *>(&remote), sizeof remote) == 0;
    }

    // Sends all of `data`; false when the server closed or reset the connection (or it stalled
    // past the timeout).
    bool send(const std::string &data)
    {
        std::size_t sent = 0;
        while (sent < data.size()) {
            const ssize_t n = ::send(m_fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            sent += std::size_t(n);
        }
        return true;
    }

    // Reads one whole answer (head, then Content-Length bytes of body).
    Response read()
    {
        Response response;
        std::size_t headEnd;
        while ((headEnd = m_buffer.find("\r\n\r\n")) == std::string::npos) {
            if (!fill())
                return response;
        }
        const std::string head = m_buffer.substr(0, headEnd + 2);
        m_buffer.erase(0, headEnd + 4);
        std::size_t lineEnd = head.find("\r\n");
        const std::string statusLine = head.substr(0, lineEnd);
        for (std::size_t start = lineEnd + 2; start < head.size(); start = lineEnd + 2) {
            lineEnd = head.find("\r\n", start);
            const std::string line = head.substr(start, lineEnd - start);
            const std::size_t colon = line.find(':');
            std::string name = line.substr(0, colon);
            for (char &c : name)
                c = char(std::tolower(static_cast<unsigned char>(c)));
            response.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
        }
        const std::size_t length = std::stoull(response.headers.count("content-length")
                                                   ? response.headers["content-length"] : std::string("0"));
        while (m_buffer.size() < length) {
            if (!fill())
                return response;
        }
        response.body = m_buffer.substr(0, length);
        m_buffer.erase(0, length);
        response.status = std::stoi(statusLine.substr(9, 3));
        return response;
    }

    // Reads and drops whatever comes until the server ends the connection: true then, false
    // when it is still open after the timeout.
    bool waitUntilClosed()
    {
        while (fill()) {
            m_buffer.clear();
        }
        return m_closed;
    }

    // Waits, reading nothing, until the server hangs up (reset or closed); false when it has not
    // within the timeout. For a client that never reads what it asked for.
    bool waitForHangUp()
    {
        pollfd wait{m_fd, POLLRDHUP, 0};
        if (::poll(&wait, 1, m_timeoutSeconds * 1000) <= 0)
            return false;
        return (wait.revents & (POLLHUP | POLLERR | POLLRDHUP)) != 0;
    }

    void close()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
        m_buffer.clear();
        m_closed = false;
    }

    int fd() const { return m_fd; }

private:
    // More bytes into the buffer; false at the end of the connection or after the timeout.
    bool fill()
    {
        char chunk[65536];
        const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
        if (n > 0) {
            m_buffer.append(chunk, std::size_t(n));
            return true;
        }
        m_closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
        return false;
    }

    int m_timeoutSeconds;
    int m_fd = -1;
    std::string m_buffer;
    bool m_closed = false;
};

} // namespace swarmtrain::test

#pragma once

#include "LocalControlServer.h"

namespace swarmtrain {

class ClientSession;

// swarmtrain-cli's requests to the desktop client: the same ClientSession calls the tray and
// the dashboard make, and the facts the window shows.
class SessionControl : public ControlHandler {
public:
    explicit SessionControl(ClientSession &session) : m_session(session) {}

    ControlStatus status() const override;
    Result<void> pause(std::optional<std::chrono::seconds> duration) override;
    Result<void> resume() override;
    Result<void> release() override;
    Result<void> join(const QString &urlOrInvite) override;
    Result<void> leave() override;

private:
    ClientSession &m_session;
};

} // namespace swarmtrain

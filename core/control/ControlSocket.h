#pragma once

#include "Result.h"

#include <QString>
#include <QtGlobal>

#include <filesystem>
#include <optional>

namespace swarmtrain {

// Where a running client's control socket lives (issue 19). One socket per state folder, so
// several clients on one machine are told apart by --state-dir, in a folder only this user can
// enter: $XDG_RUNTIME_DIR/swarmtrain, else <temp>/swarmtrain-<uid>. The folder is made 0700 and
// refused when another user owns it or can enter it, so nobody can plant a socket there first.
Result<QString> controlSocketPath(const std::filesystem::path &stateDir);

// The user at the other end of a connected local socket; nullopt where the OS does not tell
// (Windows, where the pipe's ACL admits only this user).
std::optional<quint32> peerUserId(qintptr socketDescriptor);
quint32 currentUserId();

} // namespace swarmtrain

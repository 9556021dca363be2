#pragma once

#include "Result.h"

#include <QString>

namespace swarmtrain {

// What a friend needs to join a swarm hosted on someone's PC: the coordinator's URL, for a
// self-signed certificate the pin of its public key, and for an invite-only swarm its token.
struct Invite {
    QString swarmUrl;  // http(s)://host:port
    QString pin;       // "" or "sha256//BASE64"
    QString token{};   // "" or the swarm's invite token (hex)
};

// "swarmtrain://join?swarm=https%3A%2F%2F192.168.1.5%3A8470&pin=sha256%2F%2F...&token=..."
QString formatInvite(const Invite &invite);
// An invite link, or a plain http(s) URL (no pin). Anything else is an error saying why.
Result<Invite> parseInvite(const QString &text);

// Whether `swarmUrl` is plain http:// to a host other than this machine (loopback): a client
// refuses it unless the person allowed plain HTTP, since anyone on the way could forge answers.
bool isPlainHttpOffThisMachine(const QString &swarmUrl);

} // namespace swarmtrain

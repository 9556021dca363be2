#pragma once

#include <QString>

#include <optional>

namespace swarmtrain {

namespace protocol {
constexpr qsizetype kMaxDisplayNameChars = 32; // Unicode characters, after trimming
} // namespace protocol

// Why a display name is refused. The coordinator names the fault in its decode error; the
// Settings page says it in the person's language.
enum class DisplayNameFault {
    TooLong,
    ControlCharacter, // C0/C1 controls, line and paragraph separators, broken UTF-16
    BidiControl,      // overrides, embeddings, isolates and marks: they can reorder what others read
    ZeroWidth,        // invisible characters that make two names look the same
    OnlyWhitespace,
};

struct DisplayNameCheck {
    QString name; // trimmed and in NFC: what is sent and stored ("" for no name)
    std::optional<DisplayNameFault> fault;

    bool ok() const { return !fault.has_value(); }
};

// The one rule for the name a person shows on a swarm's leaderboard, applied by the client's
// Settings and by the coordinator's decoding of a join. "" is no name and always fine. A name is
// shown to strangers but never identifies a peer: the key id does.
DisplayNameCheck validateDisplayName(const QString &name);

// The fault as a decode error's bound, in English ("must be at most 32 characters ...").
QString displayNameFaultText(DisplayNameFault fault);

} // namespace swarmtrain

#pragma once

#include <QSet>
#include <QString>

namespace swarmtrain {

// Who may join a swarm (DESIGN.md, "Security model"): anyone, holders of the invite link's
// token, or the keys on the host's list.
enum class Admission { Open, Invite, Allowlist };

// The coordinator's defences against strangers (issue 16), from its flags.
struct TrustSettings {
    Admission admission = Admission::Open;
    QString inviteToken;      // Admission::Invite: the token the invite link carries
    QSet<QString> allowedKeys; // Admission::Allowlist: key ids
    // Keys the host vouches for (its own PCs): past probation from their first round, so they
    // own ranges, vote and verify at once. Every other identity of an open swarm starts on it.
    QSet<QString> trustedKeys;
    // Identities online at once from one address and from one subnet (/24 for IPv4, /64 for
    // IPv6); 0: no limit. Generous enough for a household or a LAN party behind one NAT.
    int maxPeersPerAddress = 8;
    int maxPeersPerSubnet = 32;
    // Rounds a new identity agrees with the swarm before it votes and owns ranges (open swarms);
    // with spot checks on, one of them must also have been recomputed and found honest.
    int probationRounds = 3;
    // Offences (dishonest claims and requests) after which a key is banned.
    int banAfterOffences = 3;
    // Spot checks: the share of (member, round) pairs whose work another peer recomputes, for
    // established members and for those on probation; 0 turns them off.
    double spotCheckRate = 0.05;
    double spotCheckRateNew = 0.5;
    // A member asked for its update sends it within this time, or the check counts against it;
    // a check not reported by then is given up.
    qint64 spotCheckTimeoutMs = 15 * 60'000;
    // How close the sent update must be to the recomputed one (cosine similarity, and the ratio
    // of their norms): AgreementTolerance's defaults, whose measurements UpdateAgreement.h gives
    // (honest replays: cosine > 0.9999, norm within 1e-4; the closest attack: cosine 0.96).
    double minCosine = 0.99;
    // Disputed ranges are settled by the coordinator's ruling on the owner's evidence (issue 43),
    // not by the range's referee alone. Off (--no-range-rulings): the adversary tests' way to show
    // what two colluding partners do without it.
    bool rangeRulings = true;
    // The share of each round's ranges the coordinator audits, ruling on their owners' evidence
    // whatever their checkers said (Verification::rangeAudit; with range rulings only). Each
    // audited owner uploads about one encoded model's worth of pieces; 0 turns audits off.
    double rangeAuditRate = 0.25;
    // Each range's referee checks every average, not only a disputed one (with range rulings
    // only): a coalition then decides its own range only where it holds both the checker and the
    // referee. Members send the referee their pieces too (a third copy: 1.33x the all-reduce's
    // bytes with the checker alone). Off (--no-referee-checks): the adversary tests' way to show
    // what the checker alone lets pass.
    bool refereeChecks = true;
    double minRelativeNorm = 0.9;
    double maxRelativeNorm = 1.1;
};

} // namespace swarmtrain

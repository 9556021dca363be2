#pragma once

#include "EndpointGroup.h"

#include <QThreadPool>

#include <filesystem>
#include <map>
#include <optional>

namespace swarmtrain {

// POST /v1/round/averages?round=R (issue 16): the range averages a member applied in round R,
// as a blob (RangeAverageBlob.h), posted before it uploads state R + 1. Only a member whose
// contribution to R was accepted may post them, once R is done; each range must be one of R's
// ranges and its payload must hash to what its owner and its checker reported applying, or,
// where the range had a referee, to what two of the three reported (a range its referee settled
// on the checker's average carries the checker's, not its lying owner's); where the coordinator
// ruled on the owner's evidence, an average it upheld is the range's and one it refuted is not. The
// blob is kept per poster and per attempt of R in the checkpoints dir, and StateEndpoints
// recomputes a state from its own uploader's averages: no member can swap in a blob (a subset
// of the ranges, say) under another's upload and have that one refused as forged. Reading, decoding and hashing happen on a worker thread.
class AverageEndpoints : public EndpointGroup {
public:
    explicit AverageEndpoints(CoordinatorContext context);
    ~AverageEndpoints() override;

    void addRoutes(RouteTable &routes) override;
    // A round's encoded averages, with room for a header per range.
    static qint64 maxAveragesBytes(std::int64_t parameterCount);

    // Where the checked averages `keyId` posted for attempt `attempt` of round `round` are kept.
    static std::filesystem::path averagesFile(const CoordinatorSetup &setup, qint64 round, qint64 attempt,
                                              const QString &keyId);
    // Removes the averages kept for rounds before `round`: state round + 1 is held.
    static void forgetAveragesBefore(const CoordinatorSetup &setup, qint64 round);

    // One range of the round's schedule and the hashes its partners reported applying.
    struct Partner {
        QString role; // "owner", "checker", "referee"
        QString keyId;
        std::optional<QString> hash; // unset: it reported none for the range
    };
    // The coordinator's ruling on the range owner's evidence (OwnerEvidence.h), where it ruled.
    struct Ruling {
        bool upheld = false;
        QString sha256; // of the owner's average it ruled on
        QString redoneSha256{}; // refuted: of the range as the coordinator recomputed it (empty: none)
    };
    struct ExpectedRange {
        qint64 end = 0;
        std::vector<Partner> partners; // its owner, then its checker and referee where it had them
        // An upheld average is the range's whatever the partners applied; a refuted one never is.
        std::optional<Ruling> ruling;
    };
    struct Expected {
        qint64 attempt = 0;                    // the round's attempt that produced the agreed state
        std::map<qint64, ExpectedRange> ranges; // by begin
    };

    // Why `blob` is not a set of round averages `expected` vouches for, or "" (a worker thread).
    static QString refusal(const QByteArray &blob, const Expected &expected, qint64 parameterCount);

private:
    void upload(const HttpExchange &exchange);
    // The round's ranges and their reported hashes, when `peer` may post round `round`'s averages.
    Result<Expected> expectationFor(const PeerRecord &peer, qint64 round, int &status);

    QThreadPool m_checks; // blob checks; waited for before the endpoints go
};

} // namespace swarmtrain

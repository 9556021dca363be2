#pragma once

#include "EndpointGroup.h"

#include <filesystem>

namespace swarmtrain {

// The swarm's state and data: GET /v1/checkpoint and /v1/shards/{id} (public, resumable), and
// POST /v1/checkpoint?round=R, the agreed state uploaded by a member the coordinator asked.
class StateEndpoints : public EndpointGroup {
public:
    using EndpointGroup::EndpointGroup;

    void addRoutes(RouteTable &routes) override;
    // Parameters and the outer momentum in float32, plus room for the header and tokenizer.
    qint64 maxStateBytes() const { return m_context.setup.parameterCount * 8 + (16 << 20); }

private:
    HttpReply checkpoint(const QHttpServerRequest &request);
    HttpReply shard(const QHttpServerRequest &request, const QString &id);
    HttpReply upload(const PeerRecord &peer, const QHttpServerRequest &request);
    // The round that produced state `stateRound`, when `peer` may upload that state.
    Result<RoundRecord> uploadAllowed(const PeerRecord &peer, qint64 stateRound, int &status);
    // Why the file is not the state round `round` agreed on, or "" when it is.
    QString refusal(const std::filesystem::path &file, qint64 stateRound, const RoundRecord &round);
};

} // namespace swarmtrain

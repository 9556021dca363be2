#pragma once

#include "EndpointGroup.h"
#include "ModelConfig.h"
#include "OuterOptimizer.h"

#include <QThreadPool>

#include <filesystem>
#include <memory>

namespace swarmtrain {

// The swarm's state and data: GET /v1/checkpoint[?round=R] (a pipeline swarm's: the model put
// together from its stages for its latest export), /v1/shards/{id} (token shards) and
// /v1/tokenizer (a SentencePiece swarm's tokenizer.model), public and resumable, and
// POST /v1/checkpoint?round=R, the agreed state uploaded by a member the coordinator asked.
// Downloads stream from their files; an upload arrives spooled to a file in the checkpoints dir
// with its hash, and is checked on a worker thread while the coordinator goes on answering.
class StateEndpoints : public EndpointGroup {
public:
    explicit StateEndpoints(CoordinatorContext context);
    ~StateEndpoints() override;

    void addRoutes(RouteTable &routes) override;
    // Parameters and the outer momentum in float32, plus room for the header and tokenizer.
    qint64 maxStateBytes() const { return m_context.setup.parameterCount * 8 + (16 << 20); }

private:
    // An upload between its arrival and its verdict.
    struct Upload {
        QString keyId;
        qint64 stateRound = 0;
        RoundRecord round;
        std::shared_ptr<QFile> file; // the spooled body; removed with it unless kept
        QString sha256;
        qint64 bytes = 0;
        // What the state is recomputed from: state stateRound - 1 and that round's averages;
        // empty when the coordinator never got that state.
        std::filesystem::path previousState;
        std::filesystem::path averages;
    };
    // Why the upload is refused, and whether refusing it counts against the uploader.
    struct Verdict {
        QString why;
        bool forged = false;
    };

    HttpReply checkpoint(const HttpRequest &request);
    HttpReply shard(const HttpRequest &request, const QString &id);
    HttpReply tokenizer(const HttpRequest &request);
    void upload(const HttpExchange &exchange);
    // The round that produced state `stateRound`, when `peer` may upload that state.
    Result<RoundRecord> uploadAllowed(const PeerRecord &peer, qint64 stateRound, int &status);
    // Why the file is not the state round `round` agreed on, or "" when it is (a worker thread).
    static QString refusal(const std::filesystem::path &file, qint64 stateRound, const RoundRecord &round,
                           const ModelConfig &model);
    // Whether the file is the state recomputed from the previous one and the round's averages
    // (issue 16: the new state is fixed by computation, not by votes); a worker thread.
    // (`scheduleAdvance`: how far the round moves the inner schedule).
    static Verdict recomputed(const Upload &upload, std::int64_t parameterCount, const OuterOptimizerOptions &outer,
                              std::int64_t scheduleAdvance);
    // What the upload is checked against, on the server's thread; the status when it cannot be.
    Result<void> findInputs(Upload &upload, int &status);
    // Back on the server's thread: the checked upload becomes the current state, or is dropped.
    HttpReply keep(const Upload &upload, const Verdict &verdict);

    QThreadPool m_checks; // upload checks; waited for before the endpoints go
};

} // namespace swarmtrain

#pragma once

#include "ActivationWire.h"
#include "PipelineDriver.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <vector>

namespace swarmtrain {

class PeerTransport;
class StageWorker;

// A trainer's validation loss through the pipeline (issue 17): each batch runs through stage 0
// here, a FORWARD at one peer of every middle stage and an EVALUATE at one peer of the last
// stage, which answers the loss and computes no gradient; nothing is held anywhere. One batch at
// a time; any refusal, bad answer or silence of `timeoutMs` ends the evaluation as failed
// (validation is a report, never worth a retry). Lives on the transport's thread.
class StageEvaluator : public QObject {
public:
    using Done = std::function<void(bool ok, double meanLoss)>;

    StageEvaluator(PeerTransport &transport, StageWorker &firstStage, int stageCount, WirePrecision precision,
                   QObject *parent = nullptr);

    // `peers[s]` serves stage s (1..S-1; [0] unused). Replaces an evaluation in flight.
    void run(std::vector<Microbatch> batches, std::vector<QString> peers, Done done);

private:
    void next();
    void send(int stage, QByteArray input);
    void onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload);
    void finish(bool ok);

    PeerTransport &m_transport;
    StageWorker &m_firstStage;
    int m_stageCount = 2;
    WirePrecision m_precision;
    QTimer m_timer;
    std::vector<Microbatch> m_batches;
    std::vector<QString> m_peers;
    Done m_done;
    std::size_t m_index = 0;
    int m_stage = 0;           // the stage whose answer is awaited
    std::uint64_t m_id = 0;    // the batch's id on the wire
    std::uint64_t m_run = 0;   // guards stage-0 results of a replaced run
    double m_lossSum = 0.0;
    static constexpr int kTimeoutMs = 60'000;
};

} // namespace swarmtrain

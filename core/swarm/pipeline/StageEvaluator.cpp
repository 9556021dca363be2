#include "StageEvaluator.h"

#include "PeerTransport.h"
#include "StageFrames.h"
#include "StageWorker.h"

#include <cmath>

namespace swarmtrain {

namespace {
// Evaluation ids never meet a trainer's microbatch ids, which count up from 1.
constexpr std::uint64_t kEvaluationIds = std::uint64_t(1) << 62;
} // namespace

StageEvaluator::StageEvaluator(PeerTransport &transport, StageWorker &firstStage, int stageCount, WirePrecision precision,
                               QObject *parent)
    : QObject(parent)
    , m_transport(transport)
    , m_firstStage(firstStage)
    , m_stageCount(stageCount)
    , m_precision(precision)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] { finish(false); });
    connect(&transport, &PeerTransport::frameReceived, this, &StageEvaluator::onFrame);
}

void StageEvaluator::run(std::vector<Microbatch> batches, std::vector<QString> peers, Done done)
{
    if (m_done)
        finish(false);
    m_batches = std::move(batches);
    m_peers = std::move(peers);
    m_done = std::move(done);
    m_index = 0;
    m_lossSum = 0.0;
    ++m_run;
    if (m_batches.empty() || int(m_peers.size()) != m_stageCount)
        return finish(false);
    next();
}

void StageEvaluator::next()
{
    if (m_index == m_batches.size())
        return finish(true);
    const Microbatch &batch = m_batches[m_index];
    m_id = kEvaluationIds + m_run * 1'000'000 + m_index;
    m_timer.start(kTimeoutMs);
    const std::uint64_t run = m_run;
    const auto tokens = std::make_shared<std::vector<std::int32_t>>(batch.tokens);
    const MicrobatchShape shape = batch.shape;
    m_firstStage.post(
        this,
        [tokens, shape](PipelineStage &stage) { return stage.forward(StageInput{shape, *tokens, {}}); },
        [this, run](const Result<std::vector<float>> &output) {
            if (run != m_run || !m_done)
                return;
            if (!output)
                return finish(false);
            Result<QByteArray> wire = encodeWire(*output, m_precision);
            if (!wire)
                return finish(false);
            send(1, *wire);
        });
}

void StageEvaluator::send(int stage, QByteArray input)
{
    const Microbatch &batch = m_batches[m_index];
    const bool last = stage == m_stageCount - 1;
    wire::StageWork work;
    work.set_microbatch(m_id);
    work.set_stage(std::uint32_t(stage));
    work.set_step(batch.step);
    work.set_pass(last ? wire::StageWork::PASS_EVALUATE : wire::StageWork::PASS_FORWARD);
    work.set_attempt(1);
    work.set_batch(std::uint32_t(batch.shape.batch));
    work.set_tokens(std::uint32_t(batch.shape.tokens));
    work.set_precision(std::uint32_t(m_precision));
    if (last)
        input += encodeTargets(batch.targets);
    m_stage = stage;
    if (!m_transport.send(m_peers[std::size_t(stage)], stageHeader(wire::FRAME_TYPE_STAGE_REQUEST, work, input.size()), input))
        finish(false);
}

void StageEvaluator::onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload)
{
    if (!m_done || !header.has_stage() || header.stage().microbatch() != m_id || header.stage().stage() != std::uint32_t(m_stage)
        || peerKeyId != m_peers[std::size_t(m_stage)])
        return;
    if (header.type() == wire::FRAME_TYPE_STAGE_REFUSED)
        return finish(false);
    if (header.type() != wire::FRAME_TYPE_STAGE_REPLY)
        return;
    if (m_stage < m_stageCount - 1) {
        // Checked as any stranger's bytes before they go on.
        const std::size_t count = m_batches[m_index].shape.tokenCount() * std::size_t(m_firstStage.config().nEmbd);
        if (!decodeWire(payload, count, m_precision))
            return finish(false);
        return send(m_stage + 1, payload);
    }
    const double loss = header.stage().loss();
    if (!std::isfinite(loss) || loss < 0)
        return finish(false);
    m_lossSum += loss;
    ++m_index;
    next();
}

void StageEvaluator::finish(bool ok)
{
    m_timer.stop();
    Done done = std::move(m_done);
    m_done = nullptr;
    if (done)
        done(ok, ok ? m_lossSum / double(m_batches.size()) : 0.0);
}

} // namespace swarmtrain

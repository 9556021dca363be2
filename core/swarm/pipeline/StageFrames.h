#pragma once

#include "ActivationWire.h"
#include "Frame.h"
#include "PipelineStage.h"
#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace swarmtrain {

// The frames of pipeline-stage mode (frame.proto, StageWork): building their headers and
// packing and checking their payloads. A request's payload is the stage's input, then (backward)
// the output's gradient or, at the last stage, the targets as u32 little-endian; a reply's is
// the stage's output (forward) or its input's gradient (backward).

// A header of `type` (STAGE_*) with `work` as its body; payload frames are U8 of `payloadBytes`.
FrameHeader stageHeader(wire::FrameType type, const wire::StageWork &work, qsizetype payloadBytes = 0);

// The key a stage files a trainer's microbatch of a step under, "trainer/step/microbatch": no
// trainer can touch another's, and a stage can tell the steps apart.
std::string microbatchKey(const QString &trainerKeyId, std::uint64_t step, std::uint64_t microbatch);
// "trainer/step/": what every key of that trainer's step starts with.
std::string stepKeyPrefix(const QString &trainerKeyId, std::uint64_t step);
// The step of a key made by microbatchKey(); nullopt for any other string.
std::optional<std::uint64_t> stepOfKey(const std::string &key);

QByteArray encodeTargets(std::span<const std::int32_t> targets);

// Wire bytes of `count` activations, or an error (a value not finite or out of float16's range).
Result<QByteArray> encodeWire(std::span<const float> values, WirePrecision precision);

// A request's payload, split and decoded: strict, for bytes from a stranger. `lastStage`: the
// backward carries targets instead of an output gradient.
struct StageRequestPayload {
    std::vector<float> input;
    std::vector<float> gradOutput;
    std::vector<std::int32_t> targets;
};
Result<StageRequestPayload> decodeStageRequest(QByteArrayView payload, const wire::StageWork &work, int width,
                                               bool lastStage);

// Exactly `count` finite activations in `precision`, or an error.
Result<std::vector<float>> decodeWire(QByteArrayView bytes, std::size_t count, WirePrecision precision);

} // namespace swarmtrain

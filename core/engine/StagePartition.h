#pragma once

#include "ModelConfig.h"
#include "Result.h"

#include <cstdint>
#include <vector>

namespace swarmtrain {

// One stage of a pipeline swarm (issue 17): the engine's stages first..last, inclusive (0 is
// the embedding, 1..nLayer the blocks, nLayer + 1 the head).
struct StageSpan {
    int first = 0;
    int last = 0;
    double flopsPerToken = 0.0; // training (forward + backward) FLOPs of one token through it

    int stageCount() const { return last - first + 1; }
    bool operator==(const StageSpan &other) const = default;
};

// Training FLOPs per token of each engine stage, in order: 3x the forward's (backward costs
// twice the forward). A block: 24 C^2 in its matmuls and 4 C T in attention; the head: 2 C V;
// the embedding: a lookup and an add, C. Their sum is ModelConfig::flopsPerToken().
std::vector<double> engineStageFlops(const ModelConfig &config);

// Parameters a stage model of `span` holds (Decoder(config, first, last)): its stages' own, and a
// copy of the token embedding when it has the head but not the embedding.
std::int64_t spanParameterCount(const ModelConfig &config, const StageSpan &span);

// How a swarm trains its model (issue 17): a whole copy per peer (swapped through the device
// where it must, as ATOM), or one pipeline stage per peer (SWARM).
enum class SwarmMode { Full, Pipeline };

struct SwarmModePlan {
    SwarmMode mode = SwarmMode::Full;
    int stages = 1;                    // 1 in full-model mode
    std::int64_t typicalMemoryBytes = 0; // the median of the peers' training memory
    std::int64_t largestStateBytes = 0;  // a peer's training state: the model's, or its largest stage's
};

// Training state a peer holds for `parameters`: float32 values, gradients and AdamW's two moments.
inline constexpr std::int64_t kTrainingBytesPerParameter = 16;

// Full-model mode while the whole model's training state fits the typical peer's memory (the
// median of `peerMemoryBytes`); otherwise pipeline mode with the fewest stages (FLOP-balanced, by
// partitionStages) whose largest stage's state fits. An error when no split fits, or no peer
// reported its memory. ATOM's measurements favour a whole swapped copy wherever one fits: it
// exchanges parameters once a round, where a pipeline exchanges activations every microbatch.
Result<SwarmModePlan> chooseSwarmMode(const ModelConfig &config, std::vector<std::int64_t> peerMemoryBytes);

// Splits the engine's stages into `count` contiguous spans, each non-empty, the largest span's
// FLOPs as small as can be (the pipeline runs at its slowest stage). A wide vocabulary makes the
// head worth several blocks, so spans need not hold equal numbers of blocks.
Result<std::vector<StageSpan>> partitionStages(const ModelConfig &config, int count);

} // namespace swarmtrain

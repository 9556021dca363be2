#pragma once

#include "CoordinatorConfig.h"
#include "TempDir.h"

namespace swarmtrain::test {

// The in-process coordinator tests' swarm: a one-block model of width 16 on 30,000 generated
// characters written into `dir` (in shards of 4096 tokens), its state in `dir`/state.
inline CoordinatorConfig smallCoordinatorConfig(const TempDir &dir)
{
    CoordinatorConfig config;
    config.stateDir = dir.path() / "state";
    config.data = {dir.write("data.txt", generatedText(30000))};
    config.model.nLayer = 1;
    config.model.nHead = 2;
    config.model.nEmbd = 16;
    config.model.blockSize = 16;
    config.sharding.shardTokens = 4096;
    config.training.batchSize = 4;
    config.evalIters = 2;
    return config;
}

} // namespace swarmtrain::test

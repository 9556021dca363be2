#pragma once

#include "PipelineStage.h"

#include <map>
#include <string>
#include <vector>

namespace swarmtrain::test {

// A pipeline stage's gradient sum by parameter name (after it cancels what is unconfirmed).
inline std::map<std::string, std::vector<float>> gradientsByName(PipelineStage &stage)
{
    const std::vector<float> sum = stage.gradientSum();
    std::map<std::string, std::vector<float>> named;
    std::size_t offset = 0;
    for (const auto &[name, numel] : stage.parameterLayout()) {
        named[name].assign(sum.begin() + std::ptrdiff_t(offset), sum.begin() + std::ptrdiff_t(offset + std::size_t(numel)));
        offset += std::size_t(numel);
    }
    return named;
}

} // namespace swarmtrain::test

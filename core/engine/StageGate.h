#pragma once

#include <exception>
#include <functional>

namespace swarmtrain {

// Called before each stage of a forward pass and between stages of the backward pass, so a
// pause or stop takes effect within one stage's compute (DESIGN.md). It may block (a pause)
// and throws StepInterrupted to abandon the step.
using StageGate = std::function<void()>;

// The step was abandoned midway by its StageGate; its gradients are discarded.
struct StepInterrupted : std::exception {
    const char *what() const noexcept override { return "the training step was interrupted"; }
};

} // namespace swarmtrain

#pragma once

#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace swarmtrain {

// All of a model's parameters in one contiguous buffer, and their gradients in another.
// Each parameter (and its .grad) becomes a view into the flat buffers, so the optimizer,
// clipping and, later, the all-reduce each touch one tensor instead of dozens. Parameters
// that take weight decay (2-D and up) come first, so each optimizer group is one slice.
class FlatParameters {
public:
    struct Slot {
        std::string name;
        torch::Tensor parameter;
        std::int64_t offset;
        std::int64_t numel;
        bool decay;
    };

    // With `pinMemory`, the buffers are page-locked so that copies to a GPU run asynchronously.
    explicit FlatParameters(std::vector<std::pair<std::string, torch::Tensor>> namedParameters, bool pinMemory = false);

    torch::Tensor &values() { return m_values; }
    torch::Tensor &grads() { return m_grads; }
    const std::vector<Slot> &slots() const { return m_slots; }
    // The slot of the parameter called `name`; -1 when there is none.
    int findSlot(const std::string &name) const;
    std::int64_t numel() const { return m_values.numel(); }
    // Elements [0, decayCount) take weight decay; the rest do not.
    std::int64_t decayCount() const { return m_decayCount; }

    void zeroGrad() { m_grads.zero_(); }

    // Hex SHA-256 of the float32 parameter values in slot order: how swarm peers check that
    // their replicas agree after a round.
    std::string valuesHash() const;

private:
    std::vector<Slot> m_slots;
    torch::Tensor m_values;
    torch::Tensor m_grads;
    std::int64_t m_decayCount = 0;
};

} // namespace swarmtrain

#include "FlatParameters.h"

#include "Sha256.h"

#include <algorithm>

namespace swarmtrain {

FlatParameters::FlatParameters(std::vector<std::pair<std::string, torch::Tensor>> namedParameters, bool pinMemory)
{
    std::stable_partition(namedParameters.begin(), namedParameters.end(),
                          [](const auto &item) { return item.second.dim() >= 2; });
    std::int64_t total = 0;
    for (auto &[name, p] : namedParameters) {
        const bool decay = p.dim() >= 2;
        m_slots.push_back({name, p, total, p.numel(), decay});
        total += p.numel();
        if (decay)
            m_decayCount = total;
    }

    auto options = namedParameters.empty() ? torch::TensorOptions() : namedParameters.front().second.options();
    if (pinMemory)
        options = options.pinned_memory(true);
    m_values = torch::empty({total}, options.requires_grad(false));
    m_grads = torch::zeros({total}, options.requires_grad(false));

    torch::NoGradGuard noGrad;
    for (Slot &slot : m_slots) {
        torch::Tensor values = m_values.narrow(0, slot.offset, slot.numel).view(slot.parameter.sizes());
        values.copy_(slot.parameter);
        slot.parameter.set_data(values);
        // Autograd accumulates into an existing .grad in place, so gradients land here.
        slot.parameter.mutable_grad() = m_grads.narrow(0, slot.offset, slot.numel).view(slot.parameter.sizes());
    }
}

std::string FlatParameters::valuesHash() const
{
    const torch::Tensor values = m_values.detach().to(torch::kCPU, torch::kFloat).contiguous();
    return Sha256::hexOf({static_cast<const std::byte *>(values.data_ptr()), values.nbytes()});
}

int FlatParameters::findSlot(const std::string &name) const
{
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        if (m_slots[i].name == name)
            return int(i);
    }
    return -1;
}

} // namespace swarmtrain

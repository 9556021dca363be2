#include "ParallelStep.h"

#include "kernels/ParallelFor.h"

#include <exception>
#include <vector>

namespace swarmtrain {

double forwardBackward(GptImpl &model, const torch::Tensor &tokens, const torch::Tensor &targets)
{
    const std::int64_t rows = tokens.size(0);
    const std::int64_t shares = std::min<std::int64_t>(kernels::parallelThreads(), rows);
    if (shares < 2 || !tokens.device().is_cpu() || (model.is_training() && model.config().dropout > 0.0)) {
        const torch::Tensor loss = GptImpl::loss(model.forward(tokens), targets);
        loss.backward();
        return loss.item<double>();
    }

    const std::vector<torch::Tensor> parameters = model.parameters();
    std::vector<std::vector<torch::Tensor>> gradients(static_cast<std::size_t>(shares));
    std::vector<double> losses(static_cast<std::size_t>(shares), 0.0);
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(shares));
    kernels::setBlasThreads(1);
    kernels::parallelFor(shares, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t share = begin; share < end; ++share) {
            const auto i = std::size_t(share);
            try {
                const std::int64_t first = rows * share / shares, last = rows * (share + 1) / shares;
                const double weight = double(last - first) / double(rows);
                const torch::Tensor loss = GptImpl::loss(model.forward(tokens.slice(0, first, last)),
                                                         targets.slice(0, first, last));
                gradients[i] = torch::autograd::grad({loss * weight}, parameters, {}, /*retain_graph=*/false,
                                                     /*create_graph=*/false, /*allow_unused=*/true);
                losses[i] = loss.item<double>() * weight;
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    });
    kernels::setBlasThreads(kernels::parallelThreads());
    for (const std::exception_ptr &error : errors) {
        if (error)
            std::rethrow_exception(error);
    }

    // Added in share order, whichever thread finished first, so a run repeats bit for bit.
    torch::NoGradGuard noGrad;
    kernels::parallelFor(std::int64_t(parameters.size()), 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t p = begin; p < end; ++p) {
            torch::Tensor parameter = parameters[std::size_t(p)];
            if (!parameter.grad().defined())
                parameter.mutable_grad() = torch::zeros_like(parameter);
            for (const std::vector<torch::Tensor> &share : gradients) {
                if (share[std::size_t(p)].defined())
                    parameter.mutable_grad().add_(share[std::size_t(p)]);
            }
        }
    });
    double loss = 0.0;
    for (double share : losses)
        loss += share;
    return loss;
}

} // namespace swarmtrain

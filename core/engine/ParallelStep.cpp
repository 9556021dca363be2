#include "ParallelStep.h"

#include "kernels/ParallelFor.h"

#include <exception>
#include <vector>

namespace swarmtrain {

std::int64_t batchShares(const DecoderImpl &model, const torch::Tensor &tokens)
{
    if (!tokens.device().is_cpu() || (model.is_training() && model.config().dropout > 0.0))
        return 1;
    return std::max<std::int64_t>(1, std::min<std::int64_t>(kernels::parallelThreads(), tokens.size(0)));
}

std::pair<std::int64_t, std::int64_t> shareRows(std::int64_t rows, std::int64_t share, std::int64_t shares)
{
    return {rows * share / shares, rows * (share + 1) / shares};
}

void forEachShare(std::int64_t shares, const std::function<void(std::int64_t)> &body)
{
    if (shares == 1) {
        body(0);
        return;
    }
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(shares));
    kernels::setBlasThreads(1);
    kernels::parallelFor(shares, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t share = begin; share < end; ++share) {
            try {
                body(share);
            } catch (...) {
                errors[std::size_t(share)] = std::current_exception();
            }
        }
    });
    kernels::setBlasThreads(kernels::parallelThreads());
    for (const std::exception_ptr &error : errors) {
        if (error)
            std::rethrow_exception(error);
    }
}

double forwardBackward(DecoderImpl &model, const torch::Tensor &tokens, const torch::Tensor &targets, double lossScale)
{
    const std::int64_t rows = tokens.size(0);
    const std::int64_t shares = batchShares(model, tokens);
    if (shares == 1) {
        const torch::Tensor loss = DecoderImpl::loss(model.forward(tokens), targets);
        (lossScale == 1.0 ? loss : loss * lossScale).backward();
        return loss.item<double>();
    }

    const std::vector<torch::Tensor> parameters = model.parameters();
    std::vector<std::vector<torch::Tensor>> gradients(static_cast<std::size_t>(shares));
    std::vector<double> losses(static_cast<std::size_t>(shares), 0.0);
    forEachShare(shares, [&](std::int64_t share) {
        const auto [first, last] = shareRows(rows, share, shares);
        const double weight = double(last - first) / double(rows);
        const torch::Tensor loss =
            DecoderImpl::loss(model.forward(tokens.slice(0, first, last)), targets.slice(0, first, last));
        gradients[std::size_t(share)] = torch::autograd::grad({loss * (weight * lossScale)}, parameters, {},
                                                              /*retain_graph=*/false, /*create_graph=*/false,
                                                              /*allow_unused=*/true);
        losses[std::size_t(share)] = loss.item<double>() * weight;
    });

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

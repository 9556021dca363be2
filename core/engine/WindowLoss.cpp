#include "WindowLoss.h"

#include <random>

namespace swarmtrain {

Result<double> windowLoss(DecoderImpl &model, const std::vector<std::int32_t> &tokens, int batch, int evalIters,
                          std::uint64_t seed)
{
    const std::int64_t block = model.config().blockSize;
    if (batch <= 0 || evalIters <= 0)
        return makeError("the evaluation needs a positive batch size and iteration count");
    if (std::int64_t(tokens.size()) < block + 1)
        return makeError("too few tokens for one window of the model's block size");
    for (std::int32_t token : tokens) {
        if (token < 0 || token >= model.config().vocabSize)
            return makeError("a token is outside the model's vocabulary");
    }

    torch::NoGradGuard noGrad;
    const bool training = model.is_training();
    model.eval();
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> start(0, std::int64_t(tokens.size()) - block - 1);
    double sum = 0.0;
    for (int i = 0; i < evalIters; ++i) {
        torch::Tensor x = torch::empty({batch, block}, torch::kLong);
        torch::Tensor y = torch::empty({batch, block}, torch::kLong);
        std::int64_t *px = x.data_ptr<std::int64_t>(), *py = y.data_ptr<std::int64_t>();
        for (int row = 0; row < batch; ++row) {
            const std::int64_t s = start(rng);
            for (std::int64_t t = 0; t < block; ++t) {
                px[row * block + t] = tokens[std::size_t(s + t)];
                py[row * block + t] = tokens[std::size_t(s + t + 1)];
            }
        }
        sum += DecoderImpl::loss(model.forward(x), y).item<double>();
    }
    model.train(training);
    return sum / evalIters;
}

} // namespace swarmtrain

#include "Decoder.h"

#include "KvCache.h"

#include "Stages.h"

#include <cmath>
#include <map>

namespace swarmtrain {

std::shared_ptr<EmbeddingStage> makeEmbeddingStage(const ModelConfig &config)
{
    return config.isLlama() ? llama::makeEmbeddingStage(config) : gpt::makeEmbeddingStage(config);
}

std::shared_ptr<StageImpl> makeBlockStage(const ModelConfig &config, int index)
{
    return config.isLlama() ? llama::makeBlockStage(config, index) : gpt::makeBlockStage(config, index);
}

std::shared_ptr<HeadStage> makeHeadStage(const ModelConfig &config, const torch::Tensor &tiedWeight)
{
    return config.isLlama() ? llama::makeHeadStage(config, tiedWeight) : gpt::makeHeadStage(config, tiedWeight);
}

std::vector<std::pair<std::string, torch::Tensor>> StageImpl::weights()
{
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto &item : named_parameters(/*recurse=*/true))
        named.emplace_back(parameterName(item.key()), item.value());
    return named;
}

torch::Tensor StageRun::backward(const torch::Tensor &gradOutput)
{
    output.backward(gradOutput);
    return input.requires_grad() ? input.grad() : torch::Tensor();
}

DecoderImpl::DecoderImpl(const ModelConfig &config)
    : DecoderImpl(config, 0, config.nLayer + 1)
{
}

DecoderImpl::DecoderImpl(const ModelConfig &config, int first, int last)
    : m_config(config)
    , m_first(first)
{
    TORCH_CHECK(0 <= first && first <= last && last <= config.nLayer + 1, "stage range out of bounds");
    std::shared_ptr<EmbeddingStage> embedding;
    if (first == 0) {
        embedding = makeEmbeddingStage(config);
        m_stages.push_back(register_module("embedding", embedding));
    }
    std::vector<torch::Tensor> residualProjections;
    for (int i = std::max(first, 1) - 1; i < std::min(last, config.nLayer); ++i) {
        std::shared_ptr<StageImpl> block = makeBlockStage(config, i);
        for (torch::Tensor &w : block->residualProjections())
            residualProjections.push_back(w);
        m_stages.push_back(register_module("block" + std::to_string(i), block));
    }
    if (last == config.nLayer + 1) {
        const bool tiedHere = embedding && !config.untiedHead();
        m_stages.push_back(register_module("head", makeHeadStage(config, tiedHere ? embedding->tokenEmbedding() : torch::Tensor())));
    }

    // nanoGPT's and Hugging Face's initialisation: N(0, 0.02) matrices and embeddings, zero
    // biases, norms at one, and (GPT-2 only) residual projections scaled by 1/sqrt(2 * n_layer).
    torch::NoGradGuard noGrad;
    for (auto &[name, p] : namedParameters()) {
        if (name.ends_with(".bias"))
            p.zero_();
        else if (p.dim() >= 2)
            p.normal_(0.0, 0.02);
    }
    for (torch::Tensor &w : residualProjections)
        w.normal_(0.0, 0.02 / std::sqrt(2.0 * config.nLayer));
}

void DecoderImpl::initializeAsWhole(std::uint64_t seed)
{
    struct Drawn {
        std::string name;
        std::vector<std::int64_t> sizes;
    };
    torch::manual_seed(seed);
    // The whole model's stages in the constructor's order: building each draws what the
    // constructor's does (the modules' default initialisation); their parameters are noted in
    // namedParameters() order, and the blocks' residual projections after them. A tied head is
    // built reading a placeholder, as the whole model's reads the embedding: no copy, no draws.
    std::vector<Drawn> parameters, residual;
    const torch::Tensor placeholder = m_config.untiedHead() ? torch::Tensor() : torch::empty({0});
    for (int i = 0; i <= m_config.nLayer + 1; ++i) {
        std::shared_ptr<StageImpl> stage;
        if (i == 0)
            stage = makeEmbeddingStage(m_config);
        else if (i <= m_config.nLayer)
            stage = makeBlockStage(m_config, i - 1);
        else
            stage = makeHeadStage(m_config, placeholder);
        const std::vector<torch::Tensor> projections = stage->residualProjections();
        for (const auto &item : stage->named_parameters(/*recurse=*/true)) {
            Drawn drawn{stage->parameterName(item.key()), item.value().sizes().vec()};
            for (const torch::Tensor &projection : projections) {
                if (projection.is_same(item.value()))
                    residual.push_back(drawn);
            }
            parameters.push_back(std::move(drawn));
        }
    }

    // The constructor's initialisation pass, drawn into this span's tensor where it has one.
    std::map<std::string, torch::Tensor> mine;
    for (auto &[name, p] : namedParameters())
        mine.emplace(name, p);
    torch::NoGradGuard noGrad;
    const auto draw = [&](const Drawn &drawn, double std) {
        const auto it = mine.find(drawn.name);
        (it != mine.end() ? it->second : torch::empty(drawn.sizes, torch::kFloat)).normal_(0.0, std);
    };
    for (const Drawn &drawn : parameters) {
        if (drawn.name.ends_with(".bias")) {
            if (const auto it = mine.find(drawn.name); it != mine.end())
                it->second.zero_();
        } else if (drawn.sizes.size() >= 2) {
            draw(drawn, 0.02);
        }
    }
    for (const Drawn &drawn : residual)
        draw(drawn, 0.02 / std::sqrt(2.0 * m_config.nLayer));
}

torch::Tensor DecoderImpl::forward(const torch::Tensor &tokens) { return forwardStages(0, m_config.nLayer + 1, tokens); }

torch::Tensor DecoderImpl::forwardCached(const torch::Tensor &tokens, KvCache &cache)
{
    TORCH_CHECK(firstStage() == 0 && lastStage() == m_config.nLayer + 1, "generation needs the whole model");
    TORCH_CHECK(cache.length() + tokens.size(1) <= m_config.blockSize, "positions up to ", cache.length() + tokens.size(1),
                " are past the model's context of ", m_config.blockSize);
    torch::Tensor x = tokens;
    for (int i = 0; i <= lastStage(); ++i)
        x = stage(i).forwardCached(x, cache);
    cache.advance(tokens.size(1));
    return x;
}

torch::Tensor DecoderImpl::forwardStages(int first, int last, torch::Tensor input)
{
    TORCH_CHECK(first >= firstStage() && first <= last && last <= lastStage(), "stage range out of bounds");
    for (int i = first; i <= last; ++i) {
        if (m_gate)
            m_gate();
        input = stage(i).forward(input);
        // The same gate before this stage's backward.
        if (m_gate && input.requires_grad())
            input.register_hook([gate = m_gate](const torch::Tensor &) { gate(); });
    }
    return input;
}

StageRun DecoderImpl::runStages(int first, int last, const torch::Tensor &input)
{
    StageRun run;
    run.input = input.is_floating_point() ? input.detach().requires_grad_(true) : input;
    run.output = forwardStages(first, last, run.input);
    return run;
}

std::vector<std::pair<std::string, torch::Tensor>> DecoderImpl::namedParameters()
{
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto &stage : m_stages) {
        for (const auto &item : stage->named_parameters(/*recurse=*/true))
            named.emplace_back(stage->parameterName(item.key()), item.value());
    }
    return named;
}

void DecoderImpl::untieHead()
{
    if (lastStage() == m_config.nLayer + 1)
        static_cast<HeadStage &>(*m_stages.back()).untie();
}

torch::Tensor DecoderImpl::loss(const torch::Tensor &logits, const torch::Tensor &targets)
{
    return torch::cross_entropy_loss(logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}));
}

} // namespace swarmtrain

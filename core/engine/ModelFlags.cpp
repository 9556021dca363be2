#include "ModelFlags.h"

#include "CliFlags.h"

#include <fstream>
#include <sstream>

namespace swarmtrain {

void addModelFlags(CLI::App &app, ModelConfig &m, ModelFlagText &text)
{
    app.add_option("--family", text.family, "gpt (nanoGPT's GPT) or llama (RMSNorm, rotary positions, SwiGLU, GQA)")
        ->check(flags::oneOf({"gpt", "llama"}));
    app.add_option("--model-config", text.configFile,
                   "the whole model config instead of the shape flags: a Hugging Face LlamaConfig config.json")
        ->type_name("FILE.json")
        ->check(flags::nonEmpty());
    const auto shape = [&](CLI::Option *option) {
        text.shapeFlags.push_back(option);
        return option;
    };
    shape(app.add_option("--n-layer", m.nLayer, "transformer blocks")->transform(flags::wholeNumberIn(1, 1024)));
    shape(app.add_option("--n-head", m.nHead, "attention heads per block")->transform(flags::wholeNumberIn(1, 1024)));
    text.kvHeads = shape(app.add_option("--n-kv-head", m.nKvHead, "key/value heads per block, dividing --n-head (llama)")
                             ->transform(flags::wholeNumberIn(1, 1024))
                             ->default_str("--n-head"));
    shape(app.add_option("--n-embd", m.nEmbd, "embedding width (a multiple of --n-head)")
              ->transform(flags::wholeNumberIn(1, 65536)));
    text.intermediate = shape(app.add_option("--intermediate-size", m.intermediateSize, "SwiGLU MLP width (llama)")
                                  ->transform(flags::wholeNumberIn(1, 1 << 20))
                                  ->default_str("8/3 x --n-embd, rounded up to a multiple of 32"));
    shape(app.add_option("--block-size", m.blockSize, "context length in tokens")->transform(flags::wholeNumberIn(1, 1 << 20)));
    shape(app.add_option("--dropout", m.dropout, "dropout probability (gpt)")->transform(flags::numberIn(0.0, 0.99)));
    shape(app.add_flag("--bias", m.bias, "biases in linear layers and LayerNorms (gpt)"));
    shape(app.add_option("--rope-theta", m.ropeTheta, "rotary embeddings' base (llama)")->transform(flags::numberIn(1.0, 1e12)));
    shape(app.add_option("--rms-norm-eps", m.rmsNormEps, "RMSNorm's epsilon (llama)")->transform(flags::numberIn(1e-12, 0.1)));
    shape(app.add_flag("--untie-embeddings", text.untieEmbeddings, "an output head of its own, not the token embedding (llama)"));
}

Result<void> finishModelFlags(ModelConfig &model, const ModelFlagText &text)
{
    if (!text.configFile.empty()) {
        for (const CLI::Option *option : text.shapeFlags) {
            if (option->count() > 0)
                return makeError("--model-config gives the whole model: " + option->get_name() + " cannot go with it");
        }
        std::ifstream in(text.configFile, std::ios::binary);
        if (!in)
            return makeError("--model-config: cannot read " + text.configFile);
        std::ostringstream content;
        content << in.rdbuf();
        if (content.str().size() > (1u << 20))
            return makeError("--model-config: " + text.configFile + " is larger than 1 MiB");
        Result<ModelConfig> config = ModelConfig::fromJson(content.str());
        if (!config)
            return makeError("--model-config " + text.configFile + ": " + config.error().message);
        model = *config;
        return {};
    }
    model.family = *parseModelFamily(text.family); // the validator lets only these through
    if (model.isLlama()) {
        if (text.kvHeads->count() == 0)
            model.nKvHead = model.nHead;
        if (text.intermediate->count() == 0)
            model.intermediateSize = (8 * model.nEmbd / 3 + 31) / 32 * 32;
        model.tieEmbeddings = !text.untieEmbeddings;
    } else {
        for (const char *llamaOnly : {"--n-kv-head", "--intermediate-size", "--rope-theta", "--rms-norm-eps", "--untie-embeddings"}) {
            for (const CLI::Option *option : text.shapeFlags) {
                if (option->get_name() == llamaOnly && option->count() > 0)
                    return makeError(std::string(llamaOnly) + " is a flag of the llama family (--family llama)");
            }
        }
        model.nKvHead = model.nHead;
        model.intermediateSize = 4 * model.nEmbd;
    }
    if (model.nEmbd % model.nHead != 0) {
        return makeError("--n-embd (" + std::to_string(model.nEmbd) + ") must be divisible by --n-head ("
                         + std::to_string(model.nHead) + ")");
    }
    return {};
}

} // namespace swarmtrain

#pragma once

#include "ModelConfig.h"

namespace swarmtrain::test {

// A model small enough for unit tests to train in milliseconds.
inline ModelConfig tinyGptConfig(int vocabSize, int nLayer, int nHead, int nEmbd, int blockSize)
{
    ModelConfig c;
    c.vocabSize = vocabSize;
    c.nLayer = nLayer;
    c.nHead = nHead;
    c.nEmbd = nEmbd;
    c.blockSize = blockSize;
    return c;
}

// A small Llama-family model: `nKvHead` key/value heads, SwiGLU of `intermediate`.
inline ModelConfig tinyLlamaConfig(int vocabSize, int nLayer, int nHead, int nKvHead, int nEmbd, int intermediate,
                                   int blockSize, bool tied = true)
{
    ModelConfig c = tinyGptConfig(vocabSize, nLayer, nHead, nEmbd, blockSize);
    c.family = ModelFamily::Llama;
    c.nKvHead = nKvHead;
    c.intermediateSize = intermediate;
    c.tieEmbeddings = tied;
    return c;
}

} // namespace swarmtrain::test

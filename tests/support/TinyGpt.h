#pragma once

#include "GptConfig.h"

namespace swarmtrain::test {

// A model small enough for unit tests to train in milliseconds.
inline GptConfig tinyGptConfig(int vocabSize, int nLayer, int nHead, int nEmbd, int blockSize)
{
    GptConfig c;
    c.vocabSize = vocabSize;
    c.nLayer = nLayer;
    c.nHead = nHead;
    c.nEmbd = nEmbd;
    c.blockSize = blockSize;
    return c;
}

} // namespace swarmtrain::test

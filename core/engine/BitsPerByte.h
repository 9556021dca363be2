#pragma once

#include <cmath>
#include <cstdint>

namespace swarmtrain {

// Bits per byte of a text: a mean loss in nats per token, over text of `bytes` UTF-8 bytes that
// the tokenizer cut into `tokens` tokens. Losses per token cannot be compared across
// tokenizers; bits per byte can (llm.c and the scaling-law papers report it). 0 without bytes.
inline double bitsPerByte(double natsPerToken, double tokens, double bytes)
{
    return bytes > 0.0 ? natsPerToken / std::log(2.0) * tokens / bytes : 0.0;
}

} // namespace swarmtrain

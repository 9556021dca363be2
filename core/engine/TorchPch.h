// Precompiled header for the engine's LibTorch sources (parsing torch.h costs ~15 s).
#pragma once

#include <torch/torch.h>

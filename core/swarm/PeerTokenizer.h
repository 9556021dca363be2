#pragma once

#include "ControlMessages.h"
#include "Result.h"
#include "Tokenizer.h"

#include <filesystem>

namespace swarmtrain {

class CoordinatorSession;

// The swarm's tokenizer as the join answer describes it, refused unless its SHA-256 (and
// vocabulary) is the one the answer gives: a character vocabulary or bytes are built from the
// answer itself; a SentencePiece model is downloaded from GET /v1/tokenizer into `dir` (kept
// there while its hash still matches), checked and loaded.
Result<Tokenizer> fetchSwarmTokenizer(const JoinAnswer &joined, CoordinatorSession &session,
                                      const std::filesystem::path &dir);

// Whether `tokenizer` (one a state file holds) is the swarm's: "" or why not.
std::string tokenizerMismatch(const Tokenizer &tokenizer, const TokenizerInfo &swarm);

} // namespace swarmtrain

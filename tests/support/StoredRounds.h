#pragma once

#include "CoordinatorStore.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace swarmtrain::test {

// No completed round is missing from the coordinator's database: every round before `last` is
// there, done, with a 64-hex agreed hash, and where `clientHashes` names what the clients ended a
// round with, it is that hash.
inline void expectEveryRoundDone(CoordinatorStore &store, qint64 last,
                                 const std::map<qint64, std::string> &clientHashes = {})
{
    for (qint64 round = 0; round < last; ++round) {
        Result<std::optional<RoundRecord>> record = store.round(round);
        ASSERT_TRUE(record.ok() && record->has_value()) << "round " << round << " is missing";
        EXPECT_EQ((*record)->state, RoundState::Done) << "round " << round;
        EXPECT_EQ((*record)->agreedHash.size(), 64) << "round " << round;
        if (const auto hash = clientHashes.find(round); hash != clientHashes.end()) {
            EXPECT_EQ((*record)->agreedHash.toStdString(), hash->second) << "round " << round;
        }
    }
}

} // namespace swarmtrain::test

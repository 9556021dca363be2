#include "BadRecords.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

TEST(BadRecordsTest, SkipCountsEveryRecordAndLogsOnlyTheFirstFew)
{
    std::vector<std::string> logged;
    BadRecords bad(BadRecordPolicy::Skip, [&](const std::string &line) { logged.push_back(line); });
    for (int i = 1; i <= 8; ++i)
        ASSERT_TRUE(bad.report("a.jsonl:" + std::to_string(i), "not JSON").ok());
    EXPECT_EQ(bad.count(), 8u);
    ASSERT_EQ(bad.first().size(), std::size_t(BadRecords::kLogged));
    EXPECT_EQ(bad.first().front(), "a.jsonl:1: not JSON");
    ASSERT_EQ(logged.size(), std::size_t(BadRecords::kLogged) + 1);
    EXPECT_NE(logged[0].find("a.jsonl:1: not JSON"), std::string::npos);
    EXPECT_NE(logged.back().find("counted, not logged"), std::string::npos);
}

TEST(BadRecordsTest, RefuseMakesTheFirstRecordTheError)
{
    BadRecords bad(BadRecordPolicy::Refuse, {});
    const Result<void> refused = bad.report("corpus/b.bin: byte 1024", "token 70000 is outside the vocabulary");
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("corpus/b.bin: byte 1024: token 70000"), std::string::npos);
    EXPECT_NE(refused.error().message.find("--on-bad-record"), std::string::npos);
}

#include "ShardJournal.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace swarmtrain;
using test::TempDir;

namespace {

ShardJournal::Entry entry(int split, const std::string &id, std::uint64_t document)
{
    ShardJournal::Entry e;
    e.split = split;
    e.shard = {id, 4, 1, 0, std::string(64, 'c')};
    e.resume.document = document;
    e.resume.produced = {document * 3, document};
    e.resume.documents = {document, document / 10};
    e.resume.validationBytes = document * 7;
    return e;
}

void writeShardFile(const TempDir &dir, const std::string &id) { dir.write(id + ".tokens", "abcd"); }

std::vector<std::string> noLog;
auto logTo(std::vector<std::string> &lines)
{
    return [&lines](const std::string &line) { lines.push_back(line); };
}

} // namespace

TEST(ShardJournalTest, EntriesComeBackAfterAReopen)
{
    TempDir dir;
    {
        ShardJournal journal = ShardJournal::open(dir.path(), "key", logTo(noLog)).value();
        EXPECT_TRUE(journal.entries().empty());
        writeShardFile(dir, "000000");
        ASSERT_TRUE(journal.append(entry(0, "000000", 12)).ok());
        writeShardFile(dir, "validation-000000");
        ASSERT_TRUE(journal.append(entry(1, "validation-000000", 30)).ok());
    }
    const ShardJournal reopened = ShardJournal::open(dir.path(), "key", logTo(noLog)).value();
    ASSERT_EQ(reopened.entries().size(), 2u);
    EXPECT_EQ(reopened.entries()[1].split, 1);
    EXPECT_EQ(reopened.entries()[1].shard.id, "validation-000000");
    EXPECT_EQ(reopened.entries()[1].resume.document, 30u);
    EXPECT_EQ(reopened.entries()[1].resume.produced[0], 90u);
    EXPECT_EQ(reopened.entries()[1].resume.documents[1], 3u);
    EXPECT_EQ(reopened.entries()[1].resume.validationBytes, 210u);
}

TEST(ShardJournalTest, ALineTheKillCutShortIsDropped)
{
    TempDir dir;
    {
        ShardJournal journal = ShardJournal::open(dir.path(), "key", logTo(noLog)).value();
        writeShardFile(dir, "000000");
        ASSERT_TRUE(journal.append(entry(0, "000000", 12)).ok());
    }
    std::ofstream(dir.path() / "journal.jsonl", std::ios::app) << "{\"split\": 0, \"shard\": {\"id\": \"0000";
    {
        ShardJournal journal = ShardJournal::open(dir.path(), "key", logTo(noLog)).value();
        ASSERT_EQ(journal.entries().size(), 1u);
        writeShardFile(dir, "000001");
        ASSERT_TRUE(journal.append(entry(0, "000001", 20)).ok());
    }
    EXPECT_EQ(ShardJournal::open(dir.path(), "key", logTo(noLog))->entries().size(), 2u);
}

TEST(ShardJournalTest, AnotherPassOrAMissingShardStartsOver)
{
    TempDir dir;
    {
        ShardJournal journal = ShardJournal::open(dir.path(), "key", logTo(noLog)).value();
        writeShardFile(dir, "000000");
        ASSERT_TRUE(journal.append(entry(0, "000000", 12)).ok());
    }
    std::vector<std::string> log;
    EXPECT_TRUE(ShardJournal::open(dir.path(), "other key", logTo(log))->entries().empty());
    ASSERT_EQ(log.size(), 1u);
    EXPECT_NE(log[0].find("starting over"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "000000.tokens")) << "the other pass's shards are removed";

    {
        ShardJournal journal = ShardJournal::open(dir.path(), "key", logTo(noLog)).value();
        writeShardFile(dir, "000000");
        ASSERT_TRUE(journal.append(entry(0, "000000", 12)).ok());
    }
    std::filesystem::remove(dir.path() / "000000.tokens");
    log.clear();
    EXPECT_TRUE(ShardJournal::open(dir.path(), "key", logTo(log))->entries().empty());
    ASSERT_EQ(log.size(), 1u);
    EXPECT_NE(log[0].find("000000.tokens"), std::string::npos);
}

#include "CorpusFiles.h"
#include "CorpusReader.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;
using test::TempDir;

namespace {

std::vector<Document> readAll(CorpusReader &reader)
{
    std::vector<Document> documents;
    Document document;
    while (reader.next(document).value())
        documents.push_back(document);
    return documents;
}

} // namespace

TEST(CorpusReaderTest, ReadsEveryFormatInFileOrder)
{
    TempDir dir;
    dir.write("corpus/a.txt", "alpha\n\nbeta\n");
    dir.write("corpus/b.jsonl.gz", test::gzipBytes("{\"body\": \"gamma\"}\n{\"body\": 3}\n"));
    dir.write("corpus/c.bin", test::llmcBin({2, 40, 41, 2, 42}));
    dir.write("corpus/d.jsonl.zst", test::zstdBytes("{\"body\": \"delta\"}\n"));
    const CorpusInputs inputs = listCorpusInputs({dir.path() / "corpus"}).value();
    CorpusReadOptions options;
    options.textField = "body";
    std::vector<std::string> log;
    CorpusReader reader(inputs, options, TokenSpace{50, 2}, [&](const std::string &line) { log.push_back(line); });
    const std::vector<Document> documents = readAll(reader);
    ASSERT_EQ(documents.size(), 6u);
    EXPECT_EQ(documents[0].text, "alpha");
    EXPECT_EQ(documents[1].text, "beta");
    EXPECT_EQ(documents[2].text, "gamma");
    EXPECT_EQ(documents[3].tokens, (std::vector<std::int32_t>{40, 41}));
    EXPECT_EQ(documents[4].tokens, (std::vector<std::int32_t>{42}));
    EXPECT_EQ(documents[5].text, "delta");
    EXPECT_EQ(reader.badRecords().count(), 1u);
    ASSERT_FALSE(log.empty());
    EXPECT_NE(log[0].find("b.jsonl.gz:2"), std::string::npos) << log[0];
    EXPECT_EQ(reader.bytesDone(), inputs.totalBytes());
}

TEST(CorpusReaderTest, WithoutATokenizerTokenFilesArePassedOver)
{
    TempDir dir;
    dir.write("corpus/a.txt", "alpha\n");
    dir.write("corpus/c.bin", test::llmcBin({2, 40, 41}));
    const CorpusInputs inputs = listCorpusInputs({dir.path() / "corpus"}).value();
    std::vector<std::string> log;
    CorpusReader reader(inputs, {}, std::nullopt, [&](const std::string &line) { log.push_back(line); });
    const std::vector<Document> documents = readAll(reader);
    ASSERT_EQ(documents.size(), 1u);
    EXPECT_EQ(documents[0].text, "alpha");
    ASSERT_EQ(log.size(), 1u);
    EXPECT_NE(log[0].find("c.bin"), std::string::npos);
}

TEST(CorpusReaderTest, RefusingStopsAtTheFirstBadRecord)
{
    TempDir dir;
    dir.write("corpus/a.jsonl", "{\"text\": \"fine\"}\nnot json\n{\"text\": \"never read\"}\n");
    const CorpusInputs inputs = listCorpusInputs({dir.path() / "corpus"}).value();
    CorpusReadOptions options;
    options.onBadRecord = BadRecordPolicy::Refuse;
    CorpusReader reader(inputs, options, std::nullopt, {});
    Document document;
    ASSERT_TRUE(reader.next(document).value());
    const Result<bool> refused = reader.next(document);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("a.jsonl:2: not JSON"), std::string::npos) << refused.error().message;
}

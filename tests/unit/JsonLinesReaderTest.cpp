#include "CorpusFiles.h"
#include "JsonLinesReader.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;
using test::TempDir;

namespace {

std::string why(const std::string &line, const std::string &field = "text")
{
    std::string text;
    return JsonLinesReader::extractText(line, field, text);
}

std::string textOf(const std::string &line, const std::string &field = "text")
{
    std::string text;
    EXPECT_EQ(JsonLinesReader::extractText(line, field, text), "") << line;
    return text;
}

std::vector<Document> readAll(const std::filesystem::path &file, BadRecords &bad, Compression compression,
                              const std::string &field = "text")
{
    JsonLinesReader reader(openByteSource(file, compression).value(), file.filename().string(), field, bad, 1 << 16);
    std::vector<Document> documents;
    Document document;
    while (reader.next(document).value())
        documents.push_back(document);
    return documents;
}

} // namespace

TEST(JsonLinesReaderTest, TakesTheTopLevelTextFieldOnly)
{
    EXPECT_EQ(textOf(R"({"id": 3, "meta": {"text": "nested"}, "text": "top \u00e9\n\ud83d\ude00"})"),
              "top \xc3\xa9\n\xf0\x9f\x98\x80");
    EXPECT_EQ(textOf(R"({"content": "here", "text": 5})", "content"), "here");
    EXPECT_EQ(textOf(R"({"text": ""})"), "");
}

TEST(JsonLinesReaderTest, SaysWhyALineHoldsNoText)
{
    EXPECT_NE(why(R"({"text": "unterminated)").find("not JSON"), std::string::npos);
    EXPECT_NE(why(R"(["text", "an array"])").find("not a JSON object"), std::string::npos);
    EXPECT_NE(why(R"({"body": "x"})").find("no \"text\" field"), std::string::npos);
    EXPECT_NE(why(R"({"text": 42})").find("\"text\" field is a number"), std::string::npos);
    EXPECT_NE(why(R"({"text": {"a": "b"}})").find("is an object"), std::string::npos);
    EXPECT_NE(why(R"({"text": null})").find("is null"), std::string::npos);
    EXPECT_NE(why("{\"text\": \"caf\xe9\"}").find("not JSON"), std::string::npos) << "invalid UTF-8 in a string";
    EXPECT_NE(why(R"({"text": "\ud800"})").find("not JSON"), std::string::npos) << "a lone surrogate";
    EXPECT_NE(why(R"({"text": "a"} trailing)").find("not JSON"), std::string::npos);
}

TEST(JsonLinesReaderTest, DeepNestingCostsNoStack)
{
    std::string line = R"({"text": "deep", "x": )";
    line += std::string(200'000, '[') + std::string(200'000, ']') + "}";
    EXPECT_EQ(textOf(line), "deep");
    EXPECT_NE(why(std::string(500'000, '{')).find("not JSON"), std::string::npos);
}

TEST(JsonLinesReaderTest, BadLinesAreNamedByFileAndLineAndSkipped)
{
    TempDir dir;
    const std::string lines = "{\"text\": \"one\"}\n\n{\"text\": broken\n{\"text\": \"three\"}\n{\"title\": \"no text\"}\n"
                              "{\"text\": \"\"}\n{\"text\": \"six\"}";
    BadRecords bad(BadRecordPolicy::Skip, {});
    const std::vector<Document> documents = readAll(dir.write("docs.jsonl.zst", test::zstdBytes(lines)), bad, Compression::Zstd);
    ASSERT_EQ(documents.size(), 3u);
    EXPECT_EQ(documents[0].text, "one");
    EXPECT_EQ(documents[1].text, "three");
    EXPECT_EQ(documents[1].where, "docs.jsonl.zst:4");
    EXPECT_EQ(documents[2].text, "six");
    ASSERT_EQ(bad.count(), 2u);
    EXPECT_NE(bad.first()[0].find("docs.jsonl.zst:3: not JSON"), std::string::npos) << bad.first()[0];
    EXPECT_NE(bad.first()[1].find("docs.jsonl.zst:5: it has no \"text\" field"), std::string::npos) << bad.first()[1];
}

TEST(JsonLinesReaderTest, AnOverlongLineAndATruncatedFileAreBadRecords)
{
    TempDir dir;
    std::string lines = "{\"text\": \"" + std::string(100'000, 'x') + "\"}\n";
    for (int i = 0; i < 5000; ++i)
        lines += "{\"text\": \"record " + std::to_string(i) + "\"}\n";
    const std::string gz = test::gzipBytes(lines);
    BadRecords bad(BadRecordPolicy::Skip, {});
    const std::vector<Document> documents =
        readAll(dir.write("cut.jsonl.gz", gz.substr(0, gz.size() - 20)), bad, Compression::Gzip);
    ASSERT_GT(documents.size(), 4000u);
    EXPECT_LT(documents.size(), 5000u);
    EXPECT_EQ(documents.front().text, "record 0");
    ASSERT_EQ(bad.count(), 2u);
    EXPECT_NE(bad.first()[0].find("cut.jsonl.gz:1: the line is longer"), std::string::npos) << bad.first()[0];
    EXPECT_NE(bad.first()[1].find("truncated"), std::string::npos) << bad.first()[1];

    BadRecords refuse(BadRecordPolicy::Refuse, {});
    JsonLinesReader reader(openByteSource(dir.write("b.jsonl", "{\"text\": 1}\n"), Compression::None).value(), "b.jsonl",
                           "text", refuse, 1 << 16);
    Document document;
    const Result<bool> refused = reader.next(document);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("b.jsonl:1"), std::string::npos);
}

#include "CorpusFiles.h"
#include "TempDir.h"
#include "TextDocumentReader.h"

#include <gtest/gtest.h>

using namespace swarmtrain;
using test::TempDir;

namespace {

struct Read {
    std::vector<Document> documents;
    std::optional<Error> error;
};

Read readDocuments(const std::filesystem::path &file, BadRecords &bad, Compression compression = Compression::None,
                   std::size_t maxDocumentBytes = 1 << 20)
{
    TextDocumentReader reader(openByteSource(file, compression).value(), file.filename().string(), bad, 1 << 20,
                              maxDocumentBytes);
    Read read;
    Document document;
    for (;;) {
        Result<bool> got = reader.next(document);
        if (!got) {
            read.error = got.error();
            return read;
        }
        if (!*got)
            return read;
        read.documents.push_back(document);
    }
}

std::vector<std::string> textsOf(const Read &read)
{
    std::vector<std::string> texts;
    for (const Document &d : read.documents)
        texts.push_back(d.text);
    return texts;
}

} // namespace

TEST(TextDocumentReaderTest, ParagraphsSeparatedByBlankLinesAreTheDocuments)
{
    TempDir dir;
    const auto file = dir.write("play.txt", "\n\nFirst Citizen:\nBefore we proceed.\n\n  \t\nAll:\nSpeak, speak.\n\n\nEnd.");
    BadRecords bad(BadRecordPolicy::Skip, {});
    const Read read = readDocuments(file, bad);
    ASSERT_FALSE(read.error);
    EXPECT_EQ(textsOf(read),
              (std::vector<std::string>{"First Citizen:\nBefore we proceed.", "All:\nSpeak, speak.", "End."}));
    EXPECT_EQ(read.documents[0].where, "play.txt:3");
    EXPECT_EQ(read.documents[1].where, "play.txt:7");
    EXPECT_FALSE(read.documents[0].pretokenized);
    EXPECT_EQ(bad.count(), 0u);
}

TEST(TextDocumentReaderTest, AParagraphWithInvalidUtf8IsABadRecordNamedByItsLine)
{
    TempDir dir;
    const auto file = dir.write("latin1.txt", "good one\n\ncaf\xe9 au lait\nsecond line\n\nstill good\n");
    BadRecords bad(BadRecordPolicy::Skip, {});
    const Read read = readDocuments(file, bad);
    ASSERT_FALSE(read.error);
    EXPECT_EQ(textsOf(read), (std::vector<std::string>{"good one", "still good"}));
    ASSERT_EQ(bad.count(), 1u);
    EXPECT_NE(bad.first()[0].find("latin1.txt:3: invalid UTF-8 at byte 3"), std::string::npos) << bad.first()[0];

    BadRecords refuse(BadRecordPolicy::Refuse, {});
    const Read refused = readDocuments(file, refuse);
    ASSERT_TRUE(refused.error);
    EXPECT_NE(refused.error->message.find("latin1.txt:3"), std::string::npos);
}

TEST(TextDocumentReaderTest, ALongParagraphIsCutAtLineBoundaries)
{
    TempDir dir;
    std::string text;
    for (int i = 0; i < 100; ++i)
        text += "line number " + std::to_string(i) + "\n";
    BadRecords bad(BadRecordPolicy::Skip, {});
    const Read read = readDocuments(dir.write("long.txt", text), bad, Compression::None, 200);
    ASSERT_FALSE(read.error);
    ASSERT_GT(read.documents.size(), 5u);
    std::string joined;
    for (const Document &d : read.documents) {
        EXPECT_LT(d.text.size(), 200u + 20u);
        EXPECT_NE(d.text.back(), '\n');
        joined += d.text + "\n";
    }
    EXPECT_EQ(joined, text);
}

TEST(TextDocumentReaderTest, ATruncatedGzipKeepsTheParagraphsBeforeTheCut)
{
    TempDir dir;
    std::string text;
    for (int i = 0; i < 20000; ++i)
        text += "paragraph " + std::to_string(i) + " with words that do not repeat much " + std::to_string(i * 7919) + "\n\n";
    const std::string gz = test::gzipBytes(text);
    const auto file = dir.write("cut.txt.gz", gz.substr(0, gz.size() / 2));
    BadRecords bad(BadRecordPolicy::Skip, {});
    const Read read = readDocuments(file, bad, Compression::Gzip);
    ASSERT_FALSE(read.error);
    ASSERT_GT(read.documents.size(), 100u);
    EXPECT_LT(read.documents.size(), 20000u);
    for (std::size_t i = 0; i < read.documents.size(); ++i)
        ASSERT_EQ(read.documents[i].text.substr(0, 10 + std::to_string(i).size()), "paragraph " + std::to_string(i));
    ASSERT_EQ(bad.count(), 1u);
    EXPECT_NE(bad.first()[0].find("cut.txt.gz:"), std::string::npos);
    EXPECT_NE(bad.first()[0].find("truncated"), std::string::npos) << bad.first()[0];
}

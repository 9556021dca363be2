#include "ByteSource.h"
#include "CorpusFiles.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;
using test::TempDir;

namespace {

Result<std::string> readAll(const std::filesystem::path &file, Compression compression)
{
    Result<std::unique_ptr<ByteSource>> source = openByteSource(file, compression);
    if (!source)
        return source.error();
    std::string out;
    char buffer[4093]; // odd, so reads end inside lines and frames
    for (;;) {
        Result<std::size_t> got = (*source)->read(buffer, sizeof buffer);
        if (!got)
            return got.error();
        if (*got == 0)
            return out;
        out.append(buffer, *got);
    }
}

std::string bigText() { return test::generatedText(3'000'000, 11); }

} // namespace

TEST(ByteSourceTest, PlainGzipAndZstdFilesReadBackTheText)
{
    TempDir dir;
    const std::string text = bigText();
    EXPECT_EQ(readAll(dir.write("a.txt", text), Compression::None).value(), text);
    EXPECT_EQ(readAll(dir.write("a.txt.gz", test::gzipBytes(text)), Compression::Gzip).value(), text);
    EXPECT_EQ(readAll(dir.write("a.txt.zst", test::zstdBytes(text)), Compression::Zstd).value(), text);
}

TEST(ByteSourceTest, ConcatenatedGzipMembersAndZstdFramesAreOneStream)
{
    TempDir dir;
    const auto gz = dir.write("two.gz", test::gzipBytes("first\n") + test::gzipBytes("second\n"));
    EXPECT_EQ(readAll(gz, Compression::Gzip).value(), "first\nsecond\n");
    const auto zst = dir.write("two.zst", test::zstdBytes("first\n") + test::zstdBytes("second\n"));
    EXPECT_EQ(readAll(zst, Compression::Zstd).value(), "first\nsecond\n");
}

TEST(ByteSourceTest, TruncatedCompressedFilesAreErrorsNamingTheFile)
{
    TempDir dir;
    const std::string text = bigText();
    for (const auto &[name, bytes, compression] :
         {std::tuple{"cut.jsonl.gz", test::gzipBytes(text), Compression::Gzip},
          std::tuple{"cut.jsonl.zst", test::zstdBytes(text), Compression::Zstd}}) {
        for (const std::size_t keep : {bytes.size() - 1, bytes.size() / 2, std::size_t(5), std::size_t(0)}) {
            const auto file = dir.write(name, bytes.substr(0, keep));
            const Result<std::string> read = readAll(file, compression);
            ASSERT_FALSE(read.ok()) << name << " cut to " << keep << " bytes";
            EXPECT_NE(read.error().message.find(file.string()), std::string::npos) << read.error().message;
            EXPECT_TRUE(read.error().message.find("truncated") != std::string::npos
                        || read.error().message.find("not valid") != std::string::npos)
                << read.error().message;
        }
    }
    // Cut right after a whole member: what follows is missing, not damaged, and reads as the end.
    const auto whole = dir.write("whole.gz", test::gzipBytes("one\n"));
    EXPECT_EQ(readAll(whole, Compression::Gzip).value(), "one\n");
}

TEST(ByteSourceTest, CorruptCompressedDataIsAnError)
{
    TempDir dir;
    std::string gz = test::gzipBytes(bigText());
    for (std::size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i)
        gz[i] = char(~gz[i]);
    const Result<std::string> gzRead = readAll(dir.write("bad.gz", gz), Compression::Gzip);
    ASSERT_FALSE(gzRead.ok());
    EXPECT_NE(gzRead.error().message.find("bad.gz"), std::string::npos);
    const Result<std::string> zstdRead = readAll(dir.write("bad.zst", "definitely not zstd"), Compression::Zstd);
    ASSERT_FALSE(zstdRead.ok());
    EXPECT_NE(zstdRead.error().message.find("not valid zstd"), std::string::npos) << zstdRead.error().message;
}

TEST(ByteSourceTest, MissingFilesAndFoldersAreErrors)
{
    TempDir dir;
    EXPECT_FALSE(openByteSource(dir.path() / "missing.txt", Compression::None).ok());
    const Result<std::unique_ptr<ByteSource>> folder = openByteSource(dir.path(), Compression::None);
    ASSERT_FALSE(folder.ok());
    EXPECT_NE(folder.error().message.find("not a regular file"), std::string::npos);
}

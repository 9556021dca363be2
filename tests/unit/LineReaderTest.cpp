#include "LineReader.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;
using test::TempDir;

namespace {

LineReader linesOf(const std::filesystem::path &file, std::size_t maxLineBytes)
{
    return LineReader(openByteSource(file, Compression::None).value(), maxLineBytes);
}

} // namespace

TEST(LineReaderTest, NumbersLinesAndTakesALastLineWithoutNewline)
{
    TempDir dir;
    LineReader lines = linesOf(dir.write("a.txt", "one\r\n\ntwo\nthree"), 100);
    std::string line;
    std::vector<std::pair<std::uint64_t, std::string>> seen;
    while (lines.next(line).value() == LineReader::Status::Line)
        seen.emplace_back(lines.lineNumber(), line);
    EXPECT_EQ(seen, (std::vector<std::pair<std::uint64_t, std::string>>{{1, "one\r"}, {2, ""}, {3, "two"}, {4, "three"}}));
}

TEST(LineReaderTest, AnOverlongLineIsSkippedWithoutBeingHeld)
{
    TempDir dir;
    // Longer than the reader's 1 MiB chunk too, so it spans reads.
    const std::string huge(3 << 20, 'x');
    LineReader lines = linesOf(dir.write("a.jsonl", "short\n" + huge + "\nafter\n"), 1000);
    std::string line;
    ASSERT_EQ(lines.next(line).value(), LineReader::Status::Line);
    ASSERT_EQ(lines.next(line).value(), LineReader::Status::TooLong);
    EXPECT_EQ(lines.lineNumber(), 2u);
    EXPECT_TRUE(line.empty());
    EXPECT_LT(line.capacity(), 2000u);
    ASSERT_EQ(lines.next(line).value(), LineReader::Status::Line);
    EXPECT_EQ(line, "after");
    EXPECT_EQ(lines.lineNumber(), 3u);
    EXPECT_EQ(lines.next(line).value(), LineReader::Status::End);
}

TEST(LineReaderTest, LinesAcrossChunkBoundariesArriveWhole)
{
    TempDir dir;
    std::string text;
    std::vector<std::string> expected;
    for (int i = 0; text.size() < (5u << 20); ++i) {
        expected.push_back(std::string(std::size_t(i % 977), char('a' + i % 26)));
        text += expected.back() + "\n";
    }
    LineReader lines = linesOf(dir.write("a.txt", text), 1 << 20);
    std::string line;
    std::size_t i = 0;
    while (lines.next(line).value() == LineReader::Status::Line) {
        ASSERT_LT(i, expected.size());
        ASSERT_EQ(line, expected[i]) << "line " << i + 1;
        ++i;
    }
    EXPECT_EQ(i, expected.size());
}

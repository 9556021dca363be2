#include "CorpusFiles.h"
#include "CorpusInputs.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;
using test::TempDir;

TEST(CorpusInputsTest, AFolderGivesItsFilesInNameOrderWithTheirFormats)
{
    TempDir dir;
    dir.write("corpus/b.jsonl.zst", test::zstdBytes("{\"text\": \"x\"}\n"));
    dir.write("corpus/a.txt", "plain text\n");
    dir.write("corpus/c.bin", test::llmcBin({1, 2}));
    dir.write("corpus/d.jsonl.gz", test::gzipBytes("{\"text\": \"y\"}\n"));
    dir.write("corpus/e.txt.zst", test::zstdBytes("text\n"));
    dir.write("corpus/fortune", "no extension, but text\n");
    dir.write("corpus/fortune.dat", std::string("\x00\x01\x02\x03", 4));
    dir.write("corpus/.hidden.txt", "hidden\n");
    dir.write("corpus/sub/deeper.txt", "not taken: folders are not walked into\n");
    const Result<CorpusInputs> inputs = listCorpusInputs({dir.path() / "corpus/"});
    ASSERT_TRUE(inputs.ok()) << inputs.error().message;
    std::vector<std::string> names;
    for (const CorpusFile &file : inputs->files)
        names.push_back(file.name + "=" + corpusFormatName(file.format) + "/" + std::to_string(int(file.compression)));
    EXPECT_EQ(names, (std::vector<std::string>{"corpus/a.txt=text/0", "corpus/b.jsonl.zst=jsonl/2", "corpus/c.bin=bin/0",
                                               "corpus/d.jsonl.gz=jsonl/1", "corpus/e.txt.zst=text/2",
                                               "corpus/fortune=text/0"}));
    ASSERT_EQ(inputs->skipped.size(), 1u);
    EXPECT_EQ(inputs->skipped[0].filename(), "fortune.dat");
    EXPECT_TRUE(inputs->hasTokenFiles());
    EXPECT_EQ(inputs->totalBytes(), inputs->files[0].bytes + inputs->files[1].bytes + inputs->files[2].bytes
                                        + inputs->files[3].bytes + inputs->files[4].bytes + inputs->files[5].bytes);
}

TEST(CorpusInputsTest, FilesAndFoldersMixAndAFileIsTakenOnce)
{
    TempDir dir;
    const auto a = dir.write("corpus/a.txt", "one\n");
    dir.write("corpus/b.txt", "two\n");
    const auto extra = dir.write("extra.jsonl", "{\"text\": \"three\"}\n");
    std::filesystem::create_symlink(a, dir.path() / "corpus" / "c-link.txt");
    const Result<CorpusInputs> inputs = listCorpusInputs({extra, dir.path() / "corpus", a});
    ASSERT_TRUE(inputs.ok()) << inputs.error().message;
    ASSERT_EQ(inputs->files.size(), 3u);
    EXPECT_EQ(inputs->files[0].name, "extra.jsonl");
    EXPECT_EQ(inputs->files[1].name, "corpus/a.txt");
    EXPECT_EQ(inputs->files[2].name, "corpus/b.txt");
}

TEST(CorpusInputsTest, TheIdentityFollowsNamesAndSizesNotTheFolder)
{
    TempDir one, two;
    one.write("corpus/a.txt", "same\n");
    two.write("corpus/a.txt", "same\n");
    const std::string first = listCorpusInputs({one.path() / "corpus"})->sha256();
    EXPECT_EQ(listCorpusInputs({two.path() / "corpus"})->sha256(), first) << "moved elsewhere, still the same corpus";
    two.write("corpus/a.txt", "longer\n");
    EXPECT_NE(listCorpusInputs({two.path() / "corpus"})->sha256(), first);
    two.write("corpus/a.txt", "same\n");
    two.write("corpus/b.txt", "more\n");
    EXPECT_NE(listCorpusInputs({two.path() / "corpus"})->sha256(), first);
}

TEST(CorpusInputsTest, MissingBinaryAndEmptyInputsAreErrors)
{
    TempDir dir;
    EXPECT_NE(listCorpusInputs({dir.path() / "missing"}).error().message.find("data not found"), std::string::npos);
    const auto blob = dir.write("blob", std::string("ab\0cd", 5));
    EXPECT_NE(listCorpusInputs({blob}).error().message.find("binary"), std::string::npos);
    const auto latin1 = dir.write("latin1", "caf\xe9 au lait, with more text after it");
    EXPECT_NE(listCorpusInputs({latin1}).error().message.find("UTF-8"), std::string::npos);
    std::filesystem::create_directories(dir.path() / "empty");
    EXPECT_NE(listCorpusInputs({dir.path() / "empty"}).error().message.find("no corpus files"), std::string::npos);
}

#include "CorpusFiles.h"
#include "CorpusVocabulary.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace swarmtrain;
using test::TempDir;

TEST(CorpusVocabularyTest, TheCharacterVocabularyIsEveryCodePointOfTheDocumentsAndTheNewline)
{
    TempDir dir;
    dir.write("corpus/a.txt", "ab\n\nba");
    dir.write("corpus/b.jsonl.zst", test::zstdBytes("{\"text\": \"\\u00e9\\ud83d\\ude00\"}\nnot json\n"));
    const CorpusInputs inputs = listCorpusInputs({dir.path() / "corpus"}).value();
    const Result<Tokenizer> tokenizer = learnCharacterTokenizer(inputs, {}, {});
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.error().message;
    EXPECT_EQ(tokenizer->vocabulary(), (std::vector<char32_t>{U'\n', U'a', U'b', U'\u00e9', U'\U0001F600'}));
}

TEST(CorpusVocabularyTest, SentencePieceLearnsFromCompressedJsonLines)
{
    TempDir dir;
    std::string lines;
    for (int i = 0; i < 400; ++i) {
        std::string text = test::generatedText(200, unsigned(i));
        std::replace(text.begin(), text.end(), '\n', ' ');
        lines += "{\"text\": \"" + text + "\"}\n";
    }
    lines += "{\"broken\n";
    dir.write("corpus/a.jsonl.gz", test::gzipBytes(lines));
    dir.write("corpus/b.bin", test::llmcBin({1, 2, 3}));
    const CorpusInputs inputs = listCorpusInputs({dir.path() / "corpus"}).value();
    SentencePieceTraining training;
    training.vocabSize = 320;
    VocabularyPassReport report;
    const Result<std::string> model = trainSentencePieceOnCorpus(inputs, {}, training, {}, &report);
    ASSERT_TRUE(model.ok()) << model.error().message;
    const Result<Tokenizer> tokenizer = Tokenizer::fromSentencePiece(*model);
    ASSERT_TRUE(tokenizer.ok());
    EXPECT_EQ(tokenizer->vocabSize(), 320);
    EXPECT_EQ(report.documents, 400u);
    EXPECT_EQ(report.badRecords, 1u);
    EXPECT_GE(report.lines, 400u);
}

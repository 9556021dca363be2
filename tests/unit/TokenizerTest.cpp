#include "Tokenizer.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

TEST(TokenizerTest, CharacterVocabularyIsTheSortedCodePoints)
{
    const Result<Tokenizer> t = Tokenizer::buildCharacter("hello, wörld");
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->vocabSize(), 10); // ' ' , d e h l o r w ö
    EXPECT_EQ(t->vocabulary().front(), U' ');
    EXPECT_EQ(t->vocabulary().back(), U'ö');
    const auto tokens = t->encode("world, hello");
    ASSERT_TRUE(tokens.ok());
    EXPECT_EQ(t->decode(*tokens), "world, hello");
    EXPECT_EQ(t->encode("wörd")->at(1), 9);
}

TEST(TokenizerTest, RejectsUnknownCharactersAndInvalidUtf8)
{
    const Tokenizer t = Tokenizer::buildCharacter("abc").value();
    const auto unknown = t.encode("abz");
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("'z'"), std::string::npos);
    EXPECT_FALSE(Tokenizer::buildCharacter("ab\xff").ok());
    EXPECT_FALSE(Tokenizer::buildCharacter("ab\xc0\xaf").ok()); // overlong '/'
    EXPECT_FALSE(Tokenizer::buildCharacter("\xe2\x82").ok());   // truncated
    EXPECT_FALSE(Tokenizer::buildCharacter("").ok());
}

TEST(TokenizerTest, ByteTokenizerRoundTripsAnything)
{
    const Tokenizer t = Tokenizer::byteLevel();
    const std::string bytes("a\0\xff\x80z", 5);
    const auto tokens = t.encode(bytes);
    ASSERT_TRUE(tokens.ok());
    EXPECT_EQ(t.vocabSize(), 256);
    EXPECT_EQ((*tokens)[2], 255);
    EXPECT_EQ(t.decode(*tokens), bytes);
}

TEST(TokenizerTest, VocabularyRestoresTheSameTokenizer)
{
    const Tokenizer original = Tokenizer::buildCharacter("the quick brown fox").value();
    const Result<Tokenizer> restored = Tokenizer::fromVocabulary(TokenizerKind::Char, original.vocabulary());
    ASSERT_TRUE(restored.ok());
    EXPECT_EQ(*restored->encode("fox"), *original.encode("fox"));
    EXPECT_FALSE(Tokenizer::fromVocabulary(TokenizerKind::Char, {U'b', U'a'}).ok()); // unsorted
    EXPECT_FALSE(Tokenizer::fromVocabulary(TokenizerKind::Char, {0xd800}).ok());     // surrogate
}

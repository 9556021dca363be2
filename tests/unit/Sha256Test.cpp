#include "Sha256.h"

#include <gtest/gtest.h>

using swarmtrain::Sha256;

namespace {

std::string hexOf(std::string_view text) { return Sha256::hexOf(std::as_bytes(std::span(text.data(), text.size()))); }

} // namespace

TEST(Sha256Test, MatchesFipsVectors)
{
    EXPECT_EQ(hexOf(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(hexOf("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(hexOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, StreamingInPiecesEqualsOneShot)
{
    const std::string text(1000, 'a');
    Sha256 sha;
    for (std::size_t i = 0; i < text.size(); i += 37)
        sha.update(std::string_view(text).substr(i, 37));
    EXPECT_EQ(Sha256::hex(sha.finish()), hexOf(text));
    EXPECT_EQ(hexOf(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

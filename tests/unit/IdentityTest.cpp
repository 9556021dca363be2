#include "Identity.h"

#include "TempDir.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>

using namespace swarmtrain;

class IdentityTest : public ::testing::Test {
protected:
    test::TempDir dir;
    std::filesystem::path keyFile = dir.path() / "keys" / "identity.pem";

    static std::string readAll(const std::filesystem::path &path)
    {
        std::ifstream in(path, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), {}};
    }
};

TEST_F(IdentityTest, FirstRunMakesAKeyOnlyTheOwnerCanRead)
{
    Result<Identity> identity = Identity::loadOrCreate(keyFile);
    ASSERT_TRUE(identity) << identity.error().message;
    struct stat info {};
    ASSERT_EQ(::stat(keyFile.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    EXPECT_EQ(identity->publicKey().size(), Identity::kPublicKeyBytes);
    EXPECT_EQ(identity->keyId().size(), 32);
}

TEST_F(IdentityTest, LaterRunsLoadTheSameKey)
{
    Result<Identity> first = Identity::loadOrCreate(keyFile);
    ASSERT_TRUE(first);
    Result<Identity> second = Identity::loadOrCreate(keyFile);
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(first->publicKey(), second->publicKey());
    EXPECT_EQ(first->keyId(), second->keyId());
}

TEST_F(IdentityTest, SignaturesVerifyOnlyForTheSignedMessageAndKey)
{
    Result<Identity> alice = Identity::generate();
    Result<Identity> bob = Identity::generate();
    ASSERT_TRUE(alice && bob);
    const QByteArray message("join round 12");
    const QByteArray signature = alice->sign(message);
    ASSERT_EQ(signature.size(), Identity::kSignatureBytes);
    EXPECT_TRUE(Identity::verify(alice->publicKey(), message, signature));
    EXPECT_FALSE(Identity::verify(bob->publicKey(), message, signature));
    EXPECT_FALSE(Identity::verify(alice->publicKey(), "join round 13", signature));
    QByteArray forged = signature;
    forged[10] = char(forged[10] ^ 0x01);
    EXPECT_FALSE(Identity::verify(alice->publicKey(), message, forged));
    EXPECT_FALSE(Identity::verify(alice->publicKey(), message, signature.left(63)));
    EXPECT_FALSE(Identity::verify(alice->publicKey().left(31), message, signature));
    EXPECT_NE(alice->keyId(), bob->keyId());
}

TEST_F(IdentityTest, DamagedKeyFileIsAnErrorAndIsLeftAlone)
{
    ASSERT_TRUE(Identity::loadOrCreate(keyFile));
    std::string pem = readAll(keyFile);
    pem.resize(pem.size() / 2);
    { std::ofstream(keyFile, std::ios::binary | std::ios::trunc) << pem; }
    Result<Identity> loaded = Identity::loadOrCreate(keyFile);
    ASSERT_FALSE(loaded);
    EXPECT_NE(loaded.error().message.find("damaged"), std::string::npos) << loaded.error().message;
    EXPECT_EQ(readAll(keyFile), pem);
}

TEST_F(IdentityTest, KeyFileReadableByOthersIsRefused)
{
    ASSERT_TRUE(Identity::loadOrCreate(keyFile));
    std::filesystem::permissions(keyFile, std::filesystem::perms::group_read | std::filesystem::perms::others_read,
                                 std::filesystem::perm_options::add);
    Result<Identity> loaded = Identity::loadOrCreate(keyFile);
    ASSERT_FALSE(loaded);
    EXPECT_NE(loaded.error().message.find("chmod 600"), std::string::npos) << loaded.error().message;
}

TEST_F(IdentityTest, KeyOfAnotherTypeIsRefused)
{
    std::filesystem::create_directories(keyFile.parent_path());
    // An X25519 key: valid PEM, wrong algorithm for signing.
    const std::string x25519 = "-----BEGIN PRIVATE KEY-----\n"
                               "MC4CAQAwBQYDK2VuBCIEIHBVtBUk0kJyzqf6ZAv5WXqVb0ZXG8Bn0T+ZQFJ8eVhl\n"
                               "-----END PRIVATE KEY-----\n";
    { std::ofstream(keyFile) << x25519; }
    std::filesystem::permissions(keyFile, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    Result<Identity> loaded = Identity::loadOrCreate(keyFile);
    ASSERT_FALSE(loaded);
    EXPECT_NE(loaded.error().message.find("not Ed25519"), std::string::npos) << loaded.error().message;
}

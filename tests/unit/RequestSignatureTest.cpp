#include "RequestSignature.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

class RequestSignatureTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        Result<Identity> made = Identity::generate();
        ASSERT_TRUE(made);
        identity.emplace(std::move(made).value());
        signer.emplace(*identity);
    }

    Result<void> check(const RequestSignature &signature, QByteArrayView body = "{\"tokens\":768}",
                       QByteArrayView path = "/v1/contribution", qint64 nowMs = kNow)
    {
        return verifier.verify(identity->publicKey(), "POST", path, body, signature, nowMs);
    }

    static constexpr qint64 kNow = 1'790'000'000'000;
    std::optional<Identity> identity;
    std::optional<RequestSigner> signer;
    RequestVerifier verifier{60'000};
};

TEST_F(RequestSignatureTest, AcceptsAFreshSignedRequest)
{
    const RequestSignature s = signer->sign("POST", "/v1/contribution", "{\"tokens\":768}", kNow);
    EXPECT_EQ(s.keyId, identity->keyId());
    const Result<void> result = check(s);
    EXPECT_TRUE(result) << result.error().message;
}

TEST_F(RequestSignatureTest, RejectsATamperedBodyPathOrMethod)
{
    const RequestSignature s = signer->sign("POST", "/v1/contribution", "{\"tokens\":768}", kNow);
    EXPECT_FALSE(check(s, "{\"tokens\":76800}"));
    EXPECT_FALSE(check(s, "{\"tokens\":768}", "/v1/heartbeat"));
    EXPECT_FALSE(verifier.verify(identity->publicKey(), "PUT", "/v1/contribution", "{\"tokens\":768}", s, kNow));
}

TEST_F(RequestSignatureTest, RejectsAnotherPeersKey)
{
    Result<Identity> other = Identity::generate();
    ASSERT_TRUE(other);
    RequestSignature s = RequestSigner(*other).sign("POST", "/v1/contribution", "{\"tokens\":768}", kNow);
    const Result<void> wrongKey = check(s);
    ASSERT_FALSE(wrongKey);
    EXPECT_NE(wrongKey.error().message.find("key id"), std::string::npos);
    s.keyId = identity->keyId(); // claims to be us, signed by them
    const Result<void> forged = check(s);
    ASSERT_FALSE(forged);
    EXPECT_EQ(forged.error().message, "bad signature");
}

TEST_F(RequestSignatureTest, RejectsStaleAndFutureTimestamps)
{
    const RequestSignature old = signer->sign("POST", "/v1/contribution", "{\"tokens\":768}", kNow - 61'000);
    const Result<void> stale = check(old);
    ASSERT_FALSE(stale);
    EXPECT_NE(stale.error().message.find("stale"), std::string::npos);
    RequestSigner futureSigner(*identity);
    EXPECT_FALSE(check(futureSigner.sign("POST", "/v1/contribution", "{\"tokens\":768}", kNow + 61'000)));
    EXPECT_TRUE(check(RequestSigner(*identity).sign("POST", "/v1/contribution", "{\"tokens\":768}", kNow - 59'000)));
}

TEST_F(RequestSignatureTest, RejectsAReplayButNotTheNextRequest)
{
    const RequestSignature first = signer->sign("POST", "/v1/contribution", "{\"tokens\":768}", kNow);
    ASSERT_TRUE(check(first));
    const Result<void> replay = check(first, "{\"tokens\":768}", "/v1/contribution", kNow + 10);
    ASSERT_FALSE(replay);
    EXPECT_EQ(replay.error().message, "replayed request");
    // The same request again in the same millisecond gets a later timestamp, so it is new.
    const RequestSignature second = signer->sign("POST", "/v1/contribution", "{\"tokens\":768}", kNow);
    EXPECT_GT(second.timestampMs, first.timestampMs);
    EXPECT_TRUE(check(second, "{\"tokens\":768}", "/v1/contribution", kNow + 10));
}

TEST_F(RequestSignatureTest, RemembersOnlySignaturesInsideTheWindow)
{
    for (int i = 0; i < 100; ++i)
        ASSERT_TRUE(check(signer->sign("POST", "/v1/contribution", "{}", kNow + i * 1000), "{}", "/v1/contribution",
                          kNow + i * 1000));
    EXPECT_LE(verifier.rememberedSignatures(), 62);
    const RequestSignature early = signer->sign("POST", "/v1/contribution", "{}", kNow + 100'000);
    ASSERT_TRUE(check(early, "{}", "/v1/contribution", kNow + 100'000));
    // Much later the early request is stale, however often it is sent.
    const Result<void> late = check(early, "{}", "/v1/contribution", kNow + 200'000);
    ASSERT_FALSE(late);
    EXPECT_NE(late.error().message.find("stale"), std::string::npos);
}

// The display name rule (issue 19): one function for the Settings page and the coordinator.
#include "DisplayName.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

std::optional<DisplayNameFault> faultOf(const QString &name) { return validateDisplayName(name).fault; }

} // namespace

TEST(DisplayNameTest, NoNameIsFine)
{
    const DisplayNameCheck check = validateDisplayName(QString());
    EXPECT_TRUE(check.ok());
    EXPECT_TRUE(check.name.isEmpty());
}

TEST(DisplayNameTest, ANameIsTrimmedAndNormalisedToNfc)
{
    // "Zoë" with a combining diaeresis becomes the precomposed character.
    const DisplayNameCheck check = validateDisplayName(QStringLiteral("  Zoe\u0308's PC \u3000"));
    ASSERT_TRUE(check.ok());
    EXPECT_EQ(check.name, QStringLiteral("Zo\u00EB's PC"));
    EXPECT_EQ(validateDisplayName(QStringLiteral("<b>x</b>")).name, QStringLiteral("<b>x</b>")) << "text, not markup";
}

TEST(DisplayNameTest, AtMost32CharactersAfterTrimmingCountedAsThePersonSeesThem)
{
    EXPECT_TRUE(validateDisplayName(QString(32, QLatin1Char('x'))).ok());
    EXPECT_TRUE(validateDisplayName(QStringLiteral("   ") + QString(32, QLatin1Char('x')) + QStringLiteral("  ")).ok());
    EXPECT_EQ(faultOf(QString(33, QLatin1Char('x'))), DisplayNameFault::TooLong);
    EXPECT_EQ(faultOf(QString(10'240, QLatin1Char('x'))), DisplayNameFault::TooLong);
    QString emoji;
    for (int i = 0; i < 32; ++i)
        emoji += QStringLiteral("\U0001F680"); // two UTF-16 units, one character
    EXPECT_TRUE(validateDisplayName(emoji).ok());
    EXPECT_EQ(faultOf(emoji + QStringLiteral("\U0001F680")), DisplayNameFault::TooLong);
    // NFC first: 32 letters with combining accents are 32 characters.
    QString accented;
    for (int i = 0; i < 32; ++i)
        accented += QStringLiteral("e\u0301");
    EXPECT_TRUE(validateDisplayName(accented).ok());
}

TEST(DisplayNameTest, ControlCharactersAndLineBreaksAreRefused)
{
    for (const QString &name : {QStringLiteral("a\nb"), QStringLiteral("a\rb"), QStringLiteral("tab\there"),
                                QStringLiteral("bell\u0007"), QStringLiteral("name\n"), QStringLiteral("del\u007F"),
                                QStringLiteral("c1\u0085"), QStringLiteral("a\u2028b"), QStringLiteral("a\u2029b"),
                                QString(QChar(0)) + QStringLiteral("x")})
        EXPECT_EQ(faultOf(name), DisplayNameFault::ControlCharacter) << name.toStdString();
    EXPECT_EQ(faultOf(QString(QChar(0xD800)) + QStringLiteral("x")), DisplayNameFault::ControlCharacter)
        << "a lone surrogate is not text";
}

TEST(DisplayNameTest, BidiOverridesAndIsolatesAreRefused)
{
    for (char16_t c : {u'\u202A', u'\u202B', u'\u202C', u'\u202D', u'\u202E', u'\u2066', u'\u2067', u'\u2068',
                       u'\u2069', u'\u200E', u'\u200F'})
        EXPECT_EQ(faultOf(QStringLiteral("abc") + QChar(c) + QStringLiteral("def")), DisplayNameFault::BidiControl)
            << int(c);
    EXPECT_TRUE(validateDisplayName(QStringLiteral("\u05E9\u05DC\u05D5\u05DD")).ok()) << "right-to-left text is fine";
}

TEST(DisplayNameTest, ZeroWidthCharactersAreRefused)
{
    for (char16_t c : {u'\u200B', u'\u200C', u'\u200D', u'\u2060', u'\uFEFF'})
        EXPECT_EQ(faultOf(QStringLiteral("ad") + QChar(c) + QStringLiteral("min")), DisplayNameFault::ZeroWidth) << int(c);
}

TEST(DisplayNameTest, OnlyWhitespaceIsRefused)
{
    EXPECT_EQ(faultOf(QStringLiteral(" ")), DisplayNameFault::OnlyWhitespace);
    EXPECT_EQ(faultOf(QString(100, QLatin1Char(' '))), DisplayNameFault::OnlyWhitespace);
    EXPECT_EQ(faultOf(QStringLiteral("\u00A0\u3000")), DisplayNameFault::OnlyWhitespace);
}

TEST(DisplayNameTest, EachFaultNamesItsBound)
{
    EXPECT_TRUE(displayNameFaultText(DisplayNameFault::TooLong).contains(QStringLiteral("at most 32 characters")));
    EXPECT_TRUE(displayNameFaultText(DisplayNameFault::BidiControl).contains(QStringLiteral("U+202A")));
    EXPECT_TRUE(displayNameFaultText(DisplayNameFault::OnlyWhitespace).contains(QStringLiteral("whitespace")));
}

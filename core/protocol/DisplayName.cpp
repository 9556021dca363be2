#include "DisplayName.h"

#include <QList>

namespace swarmtrain {

namespace {

bool isBidiControl(char32_t c)
{
    return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F
           || c == 0x061C;
}

bool isZeroWidth(char32_t c)
{
    return (c >= 0x200B && c <= 0x200D) || (c >= 0x2060 && c <= 0x2064) || c == 0xFEFF || c == 0x180E;
}

bool isControl(char32_t c)
{
    const QChar::Category category = QChar::category(c);
    return category == QChar::Other_Control || category == QChar::Separator_Line
           || category == QChar::Separator_Paragraph;
}

// The first fault among the characters, before trimming (trimming would drop a trailing line break).
std::optional<DisplayNameFault> characterFault(const QString &name)
{
    for (qsizetype i = 0; i < name.size(); ++i) {
        char32_t c = name.at(i).unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < name.size() && name.at(i + 1).isLowSurrogate()) {
            c = QChar::surrogateToUcs4(name.at(i), name.at(i + 1));
            ++i;
        } else if (QChar::isSurrogate(c)) {
            return DisplayNameFault::ControlCharacter;
        }
        if (isControl(c))
            return DisplayNameFault::ControlCharacter;
        if (isBidiControl(c))
            return DisplayNameFault::BidiControl;
        if (isZeroWidth(c))
            return DisplayNameFault::ZeroWidth;
    }
    return std::nullopt;
}

} // namespace

DisplayNameCheck validateDisplayName(const QString &name)
{
    DisplayNameCheck check;
    if (name.isEmpty())
        return check;
    check.fault = characterFault(name);
    if (check.fault)
        return check;
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty()) {
        check.fault = DisplayNameFault::OnlyWhitespace;
        return check;
    }
    check.name = trimmed.normalized(QString::NormalizationForm_C);
    // Counted in code points, so an emoji is one character as the person sees it.
    if (check.name.toUcs4().size() > protocol::kMaxDisplayNameChars) {
        check.fault = DisplayNameFault::TooLong;
        check.name.clear();
    }
    return check;
}

QString displayNameFaultText(DisplayNameFault fault)
{
    switch (fault) {
    case DisplayNameFault::TooLong:
        return QStringLiteral("must be at most %1 characters after trimming").arg(protocol::kMaxDisplayNameChars);
    case DisplayNameFault::ControlCharacter:
        return QStringLiteral("must not contain control characters or line breaks");
    case DisplayNameFault::BidiControl:
        return QStringLiteral("must not contain bidirectional overrides or isolates (U+202A to U+202E, U+2066 to U+2069)");
    case DisplayNameFault::ZeroWidth:
        return QStringLiteral("must not contain zero-width characters");
    case DisplayNameFault::OnlyWhitespace:
        return QStringLiteral("must not be only whitespace");
    }
    return QStringLiteral("is not a valid display name");
}

} // namespace swarmtrain

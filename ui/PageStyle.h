#pragma once

#include <QFrame>
#include <QLabel>
#include <QPalette>
#include <QScrollArea>
#include <QString>
#include <QVBoxLayout>

namespace swarmtrain {

// The pages' common look: content on rounded "cards" over the window's background, a title per
// card, captions in the placeholder colour above their values. Palette roles keep it readable
// on a dark desktop theme.
inline QString pageStyleSheet()
{
    return QStringLiteral(
        "*[card=\"true\"] { background-color: palette(base); border: 1px solid palette(midlight); border-radius: 10px; }"
        "QLabel[role=\"headline\"] { font-size: 17pt; font-weight: 600; }"
        "QLabel[role=\"title\"] { font-size: 11pt; font-weight: 600; }"
        "QLabel[role=\"value\"] { font-size: 13pt; font-weight: 600; }");
}

// Fills `page` with a frameless scroll area around a column for its cards, so a small window
// scrolls instead of squeezing them; the column's parentWidget() is the cards' parent.
inline QVBoxLayout *makeScrollingColumn(QWidget *page, int spacing = 12)
{
    auto *content = new QWidget;
    auto *column = new QVBoxLayout(content);
    column->setContentsMargins(16, 16, 16, 16);
    column->setSpacing(spacing);
    auto *scroll = new QScrollArea(page);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *outer = new QVBoxLayout(page);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    return column;
}

inline QFrame *makeCard(QWidget *parent)
{
    auto *card = new QFrame(parent);
    card->setProperty("card", true);
    return card;
}

// `role`: "headline", "title", "value", "caption" or "" (plain text).
inline QLabel *makeLabel(const char *role, QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setProperty("role", QString::fromLatin1(role));
    if (qstrcmp(role, "caption") == 0) {
        QPalette palette = label->palette();
        palette.setColor(QPalette::WindowText, palette.color(QPalette::PlaceholderText));
        label->setPalette(palette);
    }
    return label;
}

} // namespace swarmtrain

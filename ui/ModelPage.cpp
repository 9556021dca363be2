#include "ModelPage.h"

#include "PageStyle.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextCursor>

namespace swarmtrain {

ModelPage::ModelPage(ClientSession &session, QWidget *parent) : QWidget(parent), m_session(session)
{
    setStyleSheet(pageStyleSheet());
    QVBoxLayout *column = makeScrollingColumn(this);
    QWidget *cards = column->parentWidget();

    QFrame *modelCard = makeCard(cards);
    auto *modelLayout = new QVBoxLayout(modelCard);
    m_title = makeLabel("title", modelCard);
    m_model = makeLabel("", modelCard);
    m_model->setObjectName(QStringLiteral("modelSummary"));
    m_model->setWordWrap(true);
    m_downloadsTitle = makeLabel("caption", modelCard);
    m_downloads = makeLabel("", modelCard);
    m_downloads->setObjectName(QStringLiteral("modelDownloads"));
    m_downloads->setTextFormat(Qt::RichText);
    m_downloads->setOpenExternalLinks(true);
    m_downloads->setWordWrap(true);
    for (QWidget *widget : {static_cast<QWidget *>(m_title), static_cast<QWidget *>(m_model),
                            static_cast<QWidget *>(m_downloadsTitle), static_cast<QWidget *>(m_downloads)})
        modelLayout->addWidget(widget);
    column->addWidget(modelCard);

    QFrame *promptCard = makeCard(cards);
    auto *promptLayout = new QVBoxLayout(promptCard);
    m_promptTitle = makeLabel("title", promptCard);
    auto *row = new QHBoxLayout;
    m_prompt = new QLineEdit(promptCard);
    m_prompt->setObjectName(QStringLiteral("prompt"));
    m_write = new QPushButton(promptCard);
    m_write->setObjectName(QStringLiteral("writeButton"));
    row->addWidget(m_prompt, 1);
    row->addWidget(m_write);
    m_output = new QPlainTextEdit(promptCard);
    m_output->setObjectName(QStringLiteral("continuation"));
    m_output->setReadOnly(true);
    m_output->setMinimumHeight(180);
    m_status = makeLabel("caption", promptCard);
    m_status->setObjectName(QStringLiteral("generationStatus"));
    m_status->setWordWrap(true);
    promptLayout->addWidget(m_promptTitle);
    promptLayout->addLayout(row);
    promptLayout->addWidget(m_output, 1);
    promptLayout->addWidget(m_status);
    column->addWidget(promptCard, 1);

    connect(m_write, &QPushButton::clicked, this, &ModelPage::start);
    connect(m_prompt, &QLineEdit::returnPressed, this, &ModelPage::start);
    connect(&m_session, &ClientSession::swarmUpdated, this, &ModelPage::showSwarm);
    connect(&m_session, &ClientSession::generatedText, this, &ModelPage::append);
    connect(&m_session, &ClientSession::generationFinished, this, &ModelPage::finished);
    retranslate();
}

void ModelPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void ModelPage::retranslate()
{
    m_title->setText(tr("The swarm's model"));
    m_downloadsTitle->setText(tr("Download it"));
    m_promptTitle->setText(tr("Try it"));
    m_prompt->setPlaceholderText(tr("Type the start of a text; the model writes on"));
    m_write->setText(tr("Write"));
    if (!m_session.generating())
        m_status->setText(tr("Training pauses for the few seconds the model writes, and then goes on."));
    showSwarm(m_snapshot);
}

void ModelPage::showSwarm(const SwarmSnapshot &snapshot)
{
    m_snapshot = snapshot;
    if (!snapshot.reachable) {
        m_model->setText(m_session.joined() ? tr("The swarm does not answer now.") : tr("Not in a swarm: join one on the Swarm page."));
    } else {
        QString text = tr("%1, round %2").arg(snapshot.model, QLocale().toString(snapshot.round));
        if (!snapshot.validationLoss.isEmpty()) {
            const double last = snapshot.validationLoss.last().y();
            text += QStringLiteral(" · ")
                    + (snapshot.bitsPerByte ? tr("%1 bits per byte").arg(QLocale().toString(last, 'f', 3))
                                            : tr("validation loss %1").arg(QLocale().toString(last, 'f', 3)));
        }
        m_model->setText(text);
    }
    if (snapshot.downloads.isEmpty()) {
        m_downloads->setText(tr("The swarm's host publishes no exports (the coordinator's --export-every)."));
        return;
    }
    QStringList links;
    for (const SwarmSnapshot::Download &d : snapshot.downloads) {
        if (d.name == QLatin1StringView("model.gguf") || d.name == QLatin1StringView("hf/model.safetensors"))
            links << QStringLiteral("<a href=\"%1\">%2</a>").arg(d.url.toHtmlEscaped(), d.name.toHtmlEscaped());
    }
    QString text = tr("Round %1: %2 (GGUF for llama.cpp, Ollama and LM Studio; the Hugging Face folder for transformers)")
                       .arg(QLocale().toString(snapshot.publishedRound), links.join(QStringLiteral(" · ")));
    if (snapshot.publishedTokens >= 0)
        text += QStringLiteral(" · ") + tr("%1 tokens trained").arg(QLocale().toString(snapshot.publishedTokens));
    m_downloads->setText(text);
}

void ModelPage::start()
{
    if (m_session.generating())
        return;
    m_output->setPlainText(m_prompt->text());
    m_write->setEnabled(false);
    m_status->setText(tr("Fetching the swarm's model…"));
    m_session.generate(m_prompt->text());
}

void ModelPage::append(const QString &text)
{
    if (!m_write->isEnabled())
        m_status->setText(tr("Writing; training is paused until it is done."));
    m_output->moveCursor(QTextCursor::End);
    m_output->insertPlainText(text);
}

void ModelPage::finished(bool ok, const QString &summary)
{
    m_write->setEnabled(true);
    m_status->setText(ok ? tr("Done: %1. Training goes on.").arg(summary) : tr("Could not write: %1").arg(summary));
}

} // namespace swarmtrain

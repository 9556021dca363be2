// ClientSession's Model page side: the text the person asks the swarm's model for.
#include "ClientSession.h"

#include "CoordinatorClient.h"
#include "Generation.h"
#include "Identity.h"
#include "ThrottleMonitor.h"

#include <QLocale>
#include <QLoggingCategory>
#include <QPointer>

namespace swarmtrain {

Q_DECLARE_LOGGING_CATEGORY(lcSession)

std::shared_ptr<const Identity> ClientSession::statusIdentity()
{
    if (!m_statusIdentity) {
        // Reading the status and the model needs no account: a key of its own, made once.
        Result<Identity> identity = Identity::generate();
        if (!identity) {
            qCWarning(lcSession).noquote() << "cannot reach the swarm:" << QString::fromStdString(identity.error().message);
            return nullptr;
        }
        m_statusIdentity = std::make_shared<const Identity>(std::move(identity).value());
    }
    return m_statusIdentity;
}

CoordinatorClientOptions ClientSession::swarmClientOptions(int attempts, int timeoutMs) const
{
    CoordinatorClientOptions options{m_preferences.swarmUrl, m_preferences.swarmPin, attempts, 250, timeoutMs};
    options.allowPlainHttp = plainHttpAllowed();
    return options;
}

void ClientSession::generate(const QString &prompt, int maxTokens)
{
    if (m_generating)
        return;
    const std::shared_ptr<const Identity> identity = statusIdentity();
    if (!joined() || !identity) {
        Q_EMIT generationFinished(false, tr("Join a swarm first: the model is the swarm's."));
        return;
    }
    m_generating = true;
    const QPointer<ClientSession> self(this);
    const CoordinatorClientOptions options = swarmClientOptions(3, 30'000);
    const std::filesystem::path file = m_options.stateDir / "model" / "swarm-state.safetensors";
    m_pool.start([self, options, identity, file, prompt, maxTokens] {
        // The download runs beside training; only the generation pauses it.
        std::error_code ignored;
        std::filesystem::create_directories(file.parent_path(), ignored);
        if (Result<void> got = CoordinatorClient(*identity, options).download(QStringLiteral("/v1/checkpoint"), file, {});
            !got) {
            const QString why = QString::fromStdString(got.error().message);
            QMetaObject::invokeMethod(self.get(), [self, why] {
                if (self)
                    self->finishGeneration(false, tr("Cannot fetch the swarm's model: %1").arg(why));
            });
            return;
        }
        QMetaObject::invokeMethod(self.get(), [self] {
            if (self)
                self->m_throttle->setGenerating(true);
        });
        GenerateOptions o;
        o.prompt = prompt.toStdString();
        o.maxTokens = maxTokens;
        const Result<GenerateReport> report = generateFromState(file, "cpu", o, [self](const std::string &piece) {
            const QString text = QString::fromStdString(piece);
            QMetaObject::invokeMethod(self.get(), [self, text] {
                if (self)
                    Q_EMIT self->generatedText(text);
            });
            return !self.isNull();
        });
        const bool ok = report.ok();
        const QString summary = ok ? tr("%n token(s), %1 a second", nullptr, report->tokens)
                                         .arg(QLocale().toString(report->tokensPerSecond, 'f', 0))
                                   : QString::fromStdString(report.error().message);
        QMetaObject::invokeMethod(self.get(), [self, ok, summary] {
            if (self)
                self->finishGeneration(ok, summary);
        });
    });
}

void ClientSession::finishGeneration(bool ok, const QString &summary)
{
    m_generating = false;
    m_throttle->setGenerating(false);
    Q_EMIT generationFinished(ok, summary);
}

} // namespace swarmtrain

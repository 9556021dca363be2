#include "Translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QLoggingCategory>
#include <QTranslator>

#include <memory>

namespace swarmtrain {

namespace {

Q_LOGGING_CATEGORY(lcTranslations, "swarmtrain.ui")

// The translators this module installed; the application owns no other. GUI thread only.
struct Installed {
    std::unique_ptr<QTranslator> app;
    std::unique_ptr<QTranslator> qt;
};

Installed &installed()
{
    static Installed translators;
    return translators;
}

void removeInstalled()
{
    Installed &current = installed();
    if (current.app)
        QCoreApplication::removeTranslator(current.app.get());
    if (current.qt)
        QCoreApplication::removeTranslator(current.qt.get());
    current.app.reset();
    current.qt.reset();
}

bool isEnglish(const QLocale &locale) { return locale.language() == QLocale::English || locale.language() == QLocale::C; }

} // namespace

bool applyLanguage(const QString &language)
{
    const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
    removeInstalled();
    QLocale::setDefault(locale);
    if (isEnglish(locale)) {
        // The source strings are English; removing the translators sent LanguageChange already
        // when there were any. Send it anyway, so a window shown in English retranslates its
        // numbers for the new default locale.
        QEvent change(QEvent::LanguageChange);
        QCoreApplication::sendEvent(QCoreApplication::instance(), &change);
        return true;
    }

    // QTranslator::load(locale, ...) tries the locale's UI languages with fallbacks, so the
    // system's "de_AT" finds swarmtrain_de.qm.
    auto app = std::make_unique<QTranslator>();
    if (!app->load(locale, QStringLiteral("swarmtrain"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
        qCWarning(lcTranslations) << "no translation for" << locale.name();
        return false;
    }
    auto qt = std::make_unique<QTranslator>();
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt.get());
    else
        qt.reset();
    QCoreApplication::installTranslator(app.get()); // installed last: looked up first
    installed().app = std::move(app);
    installed().qt = std::move(qt);
    qCInfo(lcTranslations) << "language" << locale.name();
    return true;
}

} // namespace swarmtrain

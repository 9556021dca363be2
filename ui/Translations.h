#pragma once

#include <QString>

namespace swarmtrain {

// Switches the application's language at once: removes the translators installed before, then
// loads ":/i18n/swarmtrain_<language>.qm" (and Qt's own qtbase translation when this system has
// one) and installs them, so every window gets QEvent::LanguageChange and retranslates.
// `language` "" follows the system (QLocale::system()). Numbers and dates follow the language too
// (QLocale::setDefault). Returns false when the language has no translation file; English needs
// none and always succeeds.
bool applyLanguage(const QString &language);

} // namespace swarmtrain

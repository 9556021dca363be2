#pragma once

#include "DisplayName.h"
#include "GpuProbe.h"
#include "Preferences.h"

#include <QList>
#include <QWidget>

#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimeEdit;
class QVBoxLayout;

namespace swarmtrain {

class ClientSession;

// The Settings page: every preference the person can change, applied at once through
// ClientSession::setPreferences() (no Apply button), and read back from the session each time
// the page is shown. Start at login and the language take effect in the session and the app.
class SettingsPage : public QWidget {
    Q_OBJECT

public:
    explicit SettingsPage(ClientSession &session, QWidget *parent = nullptr);

protected:
    void showEvent(QShowEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void load(); // the widgets from session.preferences()
    template <typename F>
    void change(F &&edit); // edits a copy of session.preferences() and applies it
    void addApp();
    void removeApps();
    void appsEdited();
    void updateEnabled();
    // Shows why the typed display name is refused, if it is; the check, for applying it.
    DisplayNameCheck showDisplayNameCheck();
    void applyDisplayName();
    // Which GPUs train: one checkbox per GPU the probe reports, ticked as the preferences say.
    void showGpusFound(const GpuReport &report);
    void showGpuChoices(); // the ticks, which boxes may change, and what the list lacks
    void gpuUseEdited(int index);

    ClientSession &m_session;
    bool m_loading = false;
    std::optional<GpuReport> m_gpus; // nullopt: no probe has answered yet
    bool m_probing = false;
    bool m_tickWhenProbed = false; // "Only the GPUs ticked below" was chosen before the probe answered

    QLabel *m_whenTitle = nullptr;
    QLabel *m_idleLabel = nullptr;
    QSpinBox *m_idleMinutes = nullptr;
    QLabel *m_idleHint = nullptr;
    QCheckBox *m_pauseOnBattery = nullptr;
    QCheckBox *m_scheduleEnabled = nullptr;
    QTimeEdit *m_scheduleStart = nullptr;
    QLabel *m_scheduleAnd = nullptr;
    QTimeEdit *m_scheduleEnd = nullptr;

    QLabel *m_appsTitle = nullptr;
    QLabel *m_appsHint = nullptr;
    QListWidget *m_apps = nullptr;
    QLineEdit *m_appName = nullptr;
    QPushButton *m_addApp = nullptr;
    QPushButton *m_removeApp = nullptr;

    QLabel *m_gpusTitle = nullptr;
    QLabel *m_gpuUseLabel = nullptr;
    QComboBox *m_gpuUse = nullptr;
    QVBoxLayout *m_gpuChoiceLayout = nullptr; // the section's: title, form, checkboxes, status, hint
    QList<QCheckBox *> m_gpuChoices; // in the probe's order, as m_gpus->gpus
    QLabel *m_gpuChoiceStatus = nullptr;
    QLabel *m_gpuChoiceHint = nullptr;

    QLabel *m_gpuTitle = nullptr;
    QLabel *m_utilizationLabel = nullptr;
    QSlider *m_utilizationSlider = nullptr;
    QSpinBox *m_utilization = nullptr;
    QLabel *m_memoryLabel = nullptr;
    QSpinBox *m_memory = nullptr;
    QLabel *m_temperatureLabel = nullptr;
    QSpinBox *m_temperature = nullptr;
    QLabel *m_gpuHint = nullptr;

    QLabel *m_appTitle = nullptr;
    QLabel *m_displayNameLabel = nullptr;
    QLineEdit *m_displayName = nullptr;
    QLabel *m_displayNameError = nullptr;
    QLabel *m_displayNameHint = nullptr;
    QCheckBox *m_startAtLogin = nullptr;
    QLabel *m_languageLabel = nullptr;
    QComboBox *m_language = nullptr;
    QLabel *m_diskLabel = nullptr;
    QSpinBox *m_diskLimit = nullptr;
    QLabel *m_diskHint = nullptr;
};

} // namespace swarmtrain

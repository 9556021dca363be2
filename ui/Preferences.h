#pragma once

#include "ThrottlePolicy.h"

#include <QString>
#include <QStringList>
#include <QTime>

class QSettings;

namespace swarmtrain {

// Which GPUs train (Settings): as F@H and BOINC let a person keep one GPU for games and give
// another to the swarm. Each GPU chosen trains a model copy of its own (GpuChoice.h).
enum class GpuUse {
    Automatic, // the --device the client started with: by default the first usable GPU, else the processor
    Chosen,    // the GPUs in Preferences::gpuUuids that are present and usable, one worker each
    None,      // no GPU: the processor trains
};

// The person's settings (Settings page), stored with QSettings through one typed table
// (Preferences.cpp): each entry has its key, its type and its default, so loading a missing or
// malformed value gives the default and saving writes every entry.
struct Preferences {
    // When to compute
    int idleMinutes = 3;           // compute only after this many minutes without input (0: always)
    bool pauseOnBattery = true;
    QStringList exclusiveApps;     // executable names (games); running one pauses and frees the GPU
    int maxGpuUtilization = 100;   // percent of the time the GPU may work (duty cycle), 10..100
    int maxGpuMemoryMiB = 0;       // 0: automatic
    int gpuTemperatureLimit = 85;  // degrees Celsius
    GpuUse gpuUse = GpuUse::Automatic;
    QStringList gpuUuids;          // with GpuUse::Chosen: the GPUs' GpuInfo::uuid, as the probe reports them
    bool scheduleEnabled = false;  // compute only between scheduleStart and scheduleEnd (may wrap midnight)
    QTime scheduleStart{22, 0};
    QTime scheduleEnd{8, 0};
    // The app
    bool startAtLogin = false;
    QString language;              // "" follows the system; else "en", "de", "es", "fr", "zh_CN", "ja", "pt_BR"
    int diskLimitGiB = 10;         // shards, checkpoints and replica under the state folder
    bool trayNoticeShown = false;  // "SwarmTrain keeps running in the tray" was said once
    // The swarm
    QString swarmUrl;              // "" until the person joins one
    QString swarmInviteToken;      // "" or an invite-only swarm's token
    QString swarmPin;              // "" or "sha256//BASE64" from an invite
    bool allowPlainHttp = false;   // plain http:// to a coordinator on another computer (forgeable answers)
    QString displayName;           // "" or this PC's name on swarms' leaderboards (validateDisplayName), sent at join

    bool operator==(const Preferences &) const = default;
};

Preferences loadPreferences(const QSettings &settings);
void savePreferences(QSettings &settings, const Preferences &preferences);

// The part ThrottlePolicy reads.
ThrottlePrefs throttlePrefs(const Preferences &preferences);

} // namespace swarmtrain

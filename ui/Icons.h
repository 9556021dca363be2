#pragma once

#include "ClientSession.h"

#include <QIcon>
#include <QString>

// The icons live in resources/swarmtrain.qrc, compiled into the static swarmtrain_ui library. An
// object file of a static library that nothing references is not linked, so the first use of an
// icon pulls the resources in explicitly (Q_INIT_RESOURCE, outside any namespace).
inline void swarmtrainInitResources()
{
    static const bool done = [] {
        Q_INIT_RESOURCE(swarmtrain);
        return true;
    }();
    (void)done;
}

namespace swarmtrain {

// An icon from PNGs rendered at several sizes (":/icons/<name>-<size>.png").
inline QIcon resourceIcon(const QString &name, std::initializer_list<int> sizes)
{
    swarmtrainInitResources();
    QIcon icon;
    for (int size : sizes)
        icon.addFile(QStringLiteral(":/icons/%1-%2.png").arg(name).arg(size), QSize(size, size));
    return icon;
}

inline QIcon applicationIcon() { return resourceIcon(QStringLiteral("swarmtrain"), {16, 32, 48, 64, 128, 256}); }

// The tray's icon for the session's state.
inline QIcon stateIcon(SessionIcon icon)
{
    switch (icon) {
    case SessionIcon::Active:
        return resourceIcon(QStringLiteral("tray-active"), {16, 22, 32, 64});
    case SessionIcon::Error:
        return resourceIcon(QStringLiteral("tray-error"), {16, 22, 32, 64});
    case SessionIcon::Paused:
        break;
    }
    return resourceIcon(QStringLiteral("tray-paused"), {16, 22, 32, 64});
}

} // namespace swarmtrain

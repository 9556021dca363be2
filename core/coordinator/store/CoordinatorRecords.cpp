#include "CoordinatorRecords.h"

namespace swarmtrain {

QString roundStateName(RoundState state)
{
    switch (state) {
    case RoundState::Gathering:
        return QStringLiteral("gathering");
    case RoundState::Running:
        return QStringLiteral("running");
    case RoundState::Done:
        return QStringLiteral("done");
    }
    return {};
}

std::optional<RoundState> roundStateFromName(const QString &name)
{
    for (RoundState state : {RoundState::Gathering, RoundState::Running, RoundState::Done}) {
        if (roundStateName(state) == name)
            return state;
    }
    return std::nullopt;
}

} // namespace swarmtrain

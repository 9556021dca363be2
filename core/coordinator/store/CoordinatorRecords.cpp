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

QString spotCheckStateName(SpotCheckState state)
{
    switch (state) {
    case SpotCheckState::AwaitingUpdate:
        return QStringLiteral("awaiting_update");
    case SpotCheckState::Checking:
        return QStringLiteral("checking");
    case SpotCheckState::Agreed:
        return QStringLiteral("agreed");
    case SpotCheckState::Refuted:
        return QStringLiteral("refuted");
    case SpotCheckState::Expired:
        return QStringLiteral("expired");
    }
    return {};
}

std::optional<SpotCheckState> spotCheckStateFromName(const QString &name)
{
    for (SpotCheckState state : {SpotCheckState::AwaitingUpdate, SpotCheckState::Checking, SpotCheckState::Agreed,
                                 SpotCheckState::Refuted, SpotCheckState::Expired}) {
        if (spotCheckStateName(state) == name)
            return state;
    }
    return std::nullopt;
}

} // namespace swarmtrain

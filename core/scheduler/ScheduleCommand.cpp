#include "ScheduleCommand.h"

#include "EvolutionarySearch.h"
#include "Rescheduler.h"
#include "ScenarioJson.h"

#include <cmath>

namespace swarmtrain::scheduler {

Result<std::string> runScheduleCommand(const std::string &scenarioJson, double seconds, std::uint64_t seed, bool json)
{
    if (!std::isfinite(seconds) || seconds < 0.0 || seconds > 86400.0)
        return makeError("--seconds must be from 0 to 86400");
    Result<Scenario> scenario = parseScenario(scenarioJson);
    if (!scenario)
        return scenario.error();
    SearchOptions search;
    search.seconds = seconds;
    search.seed = seed;
    Result<Schedule> result = makeError("no schedule");
    if (scenario->current) {
        RescheduleOptions options;
        options.search = search;
        result = reschedule(scenario->problem, *scenario->current, options);
    } else {
        result = schedule(scenario->problem, search);
    }
    if (!result)
        return result.error();
    return json ? scheduleResultToJson(scenario->problem, *result) + "\n" : formatSchedule(scenario->problem, *result);
}

} // namespace swarmtrain::scheduler

#include "BadRecords.h"

namespace swarmtrain {

BadRecords::BadRecords(BadRecordPolicy policy, std::function<void(const std::string &)> log)
    : m_policy(policy)
    , m_log(std::move(log))
{
}

Result<void> BadRecords::report(const std::string &where, const std::string &why)
{
    const std::string line = where + ": " + why;
    if (m_policy == BadRecordPolicy::Refuse)
        return makeError(line + " (--on-bad-record refuse; skip leaves such records out)");
    ++m_count;
    if (m_first.size() < std::size_t(kLogged)) {
        m_first.push_back(line);
        if (m_log)
            m_log("skipped a bad record: " + line);
        if (m_first.size() == std::size_t(kLogged) && m_log)
            m_log("further bad records are counted, not logged");
    }
    return {};
}

} // namespace swarmtrain

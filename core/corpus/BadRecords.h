#pragma once

#include "Result.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace swarmtrain {

// What a corpus's unusable records do (--on-bad-record): a bad JSON line, a missing or
// non-string text field, invalid UTF-8, a truncated compressed file, a .bin whose header lies.
enum class BadRecordPolicy { Skip, Refuse };

// Counts the bad records of a pass and logs the first few; under Refuse the first one is the
// pass's error. Each names where it is ("corpus/a.jsonl:17", "corpus/b.bin: byte 1024").
class BadRecords {
public:
    static constexpr int kLogged = 5;

    BadRecords(BadRecordPolicy policy, std::function<void(const std::string &)> log);

    Result<void> report(const std::string &where, const std::string &why);

    std::uint64_t count() const { return m_count; }
    // The first kLogged, "where: why".
    const std::vector<std::string> &first() const { return m_first; }
    BadRecordPolicy policy() const { return m_policy; }

private:
    BadRecordPolicy m_policy;
    std::function<void(const std::string &)> m_log;
    std::uint64_t m_count = 0;
    std::vector<std::string> m_first;
};

} // namespace swarmtrain

#include "EvolutionarySearch.h"

#include "Crossover.h"
#include "SiteClustering.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>

namespace swarmtrain::scheduler {

namespace {

bool improves(IncrementalCost &state, std::span<const int> move, bool tieBreaks)
{
    // Improvements smaller than this share of the cost are rounding, not progress.
    return tieBreaks ? state.improvesOrBreaksTie(move)
                     : state.improves(move, state.total() - 1e-9 * std::max(1.0, std::abs(state.total())));
}

// The clock is read once per this many priced moves.
constexpr long long kMovesPerClockRead = 16;
// The genetic phase ends at this share of the budget; the rest polishes the best assignment.
constexpr double kGeneticShare = 0.95;

} // namespace

SecondsClock steadyClock()
{
    return [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
}

EvolutionarySearch::EvolutionarySearch(const CostModel &model, SearchOptions options, StageOrder order)
    : m_model(model), m_options(std::move(options)), m_order(order), m_state(model, order), m_rng(m_options.seed)
{
    if (!m_options.clock)
        m_options.clock = steadyClock();
    m_options.population = std::max(m_options.population, 2);
    if (m_options.offspringMoves <= 0)
        m_options.offspringMoves = 4 * model.deviceCount();
}

void EvolutionarySearch::startClock()
{
    m_start = m_options.clock();
    m_deadline = m_start + std::max(m_options.seconds, 0.0);
}

bool EvolutionarySearch::timeLeft() const { return m_options.clock() < m_deadline; }

long long EvolutionarySearch::localSearch(IncrementalCost &state, long long maxMoves, bool tieBreaks)
{
    const int buckets = state.partition().bucketCount();
    const int stages = m_model.stages();
    std::vector<std::pair<int, int>> pairs;
    for (int a = 0; a < buckets; ++a) {
        for (int b = a + 1; b < buckets; ++b)
            pairs.emplace_back(a, b);
    }
    long long priced = 0;
    bool stop = false;
    const auto price = [&] {
        ++priced;
        ++m_evaluations;
        if ((maxMoves >= 0 && priced >= maxMoves) || (priced % kMovesPerClockRead == 0 && !timeLeft()))
            stop = true;
    };
    while (!stop) {
        bool improved = false;
        std::shuffle(pairs.begin(), pairs.end(), m_rng);
        for (const auto &[bucketA, bucketB] : pairs) {
            const int sizeA = int(state.partition().bucket(bucketA).size());
            const int sizeB = int(state.partition().bucket(bucketB).size());
            const int offset = int(m_rng() % std::uint64_t(std::max(sizeB, 1)));
            for (int i = 0; i < sizeA && !stop; ++i) {
                for (int j = 0; j < sizeB && !stop; ++j) {
                    const int move[2] = {state.partition().bucket(bucketA)[std::size_t(i)],
                                         state.partition().bucket(bucketB)[std::size_t((j + offset) % sizeB)]};
                    if (improves(state, move, tieBreaks)) {
                        state.applyRotation(move);
                        improved = true;
                    }
                    price();
                }
            }
            if (stop)
                break;
        }
        // Swaps are stuck: try cyclic moves of three devices in three buckets (a -> b -> c -> a),
        // which change no group's size but reach assignments no single swap improves towards.
        if (!improved && !stop && buckets >= 3) {
            const int n = state.partition().deviceCount();
            const long long tries = 4LL * n;
            for (long long t = 0; t < tries && !stop; ++t) {
                int move[3];
                for (int &d : move)
                    d = int(m_rng() % std::uint64_t(n));
                const int ga = state.partition().bucketOf(move[0]), gb = state.partition().bucketOf(move[1]),
                          gc = state.partition().bucketOf(move[2]);
                if (ga == gb || gb == gc || ga == gc)
                    continue;
                if (improves(state, move, tieBreaks)) {
                    state.applyRotation(move);
                    improved = true;
                }
                price();
            }
        }
        if (stages > kExactPathNodes)
            state.reoptimizeOrder();
        if (!improved)
            break;
    }
    return priced;
}

EvolutionarySearch::Individual EvolutionarySearch::improve(Partition partition, long long maxMoves, bool tieBreaks,
                                                           std::string origin)
{
    m_state.reset(partition);
    ++m_evaluations;
    localSearch(m_state, maxMoves, tieBreaks);
    return {m_state.partition(), m_state.total(), m_state.partition().canonical(), std::move(origin)};
}

int EvolutionarySearch::tournament()
{
    const int a = int(m_rng() % m_population.size()), b = int(m_rng() % m_population.size());
    return m_population[std::size_t(a)].cost <= m_population[std::size_t(b)].cost ? a : b;
}

void EvolutionarySearch::mutate(Partition &partition)
{
    if (partition.bucketCount() < 2)
        return;
    const int swaps = 1 + int(m_rng() % 2);
    for (int s = 0; s < swaps; ++s) {
        const int a = int(m_rng() % std::uint64_t(partition.deviceCount()));
        const int b = int(m_rng() % std::uint64_t(partition.deviceCount()));
        if (partition.bucketOf(a) != partition.bucketOf(b))
            partition.swapDevices(a, b);
    }
}

Schedule EvolutionarySearch::run(const std::vector<Partition> &initial)
{
    startClock();
    const double geneticDeadline = m_start + kGeneticShare * std::max(m_options.seconds, 0.0);
    const double finalDeadline = m_deadline;
    m_deadline = geneticDeadline;
    const int n = m_model.deviceCount(), stages = m_model.stages(), dataParallel = m_model.dataParallel();
    const long long moves = m_options.offspringMoves;

    std::vector<std::pair<Partition, std::string>> starts;
    for (const Partition &partition : initial)
        starts.emplace_back(partition, "the given assignment");
    if (m_options.siteSeeds && stages > 1) {
        for (const SiteClustering &clustering : findSiteClusterings(m_model, 4)) {
            char level[96];
            std::snprintf(level, sizeof level, "%zu sites linked within %s", clustering.sites.size(),
                          formatSeconds(clustering.threshold).c_str());
            starts.emplace_back(Partition::fromGroups(n, chainedGroups(clustering, stages, dataParallel)),
                                std::string("site-chained seed (") + level + ")");
            starts.emplace_back(Partition::fromGroups(n, packedGroups(clustering, stages, dataParallel)),
                                std::string("site-packed seed (") + level + ")");
        }
    }
    m_population.clear();
    for (auto &[partition, origin] : starts) {
        if (int(m_population.size()) >= m_options.population || (!m_population.empty() && !timeLeft()))
            break;
        m_population.push_back(improve(std::move(partition), moves, true, std::move(origin)));
    }
    while (int(m_population.size()) < m_options.population && (m_population.empty() || timeLeft()))
        m_population.push_back(improve(Partition::random(n, stages, dataParallel, m_rng), moves, true, "random start"));

    int trials = 0;
    while (trials < m_options.trials && m_population.size() >= 2 && timeLeft()) {
        const int first = tournament();
        int second = tournament();
        if (second == first)
            second = (first + 1) % int(m_population.size());
        Partition child = crossover(m_population[std::size_t(first)].partition,
                                    m_population[std::size_t(second)].partition, m_options.crossoverPoints, m_rng);
        mutate(child);
        // Offspring are many: their short searches skip the tie-break walks, which cost a full
        // pricing per move on a plateau (measured: 20x fewer offspring in the same time).
        Individual offspring = improve(std::move(child), moves, false, m_population[std::size_t(first)].origin);
        offspring.evolved = true;
        ++trials;
        const auto worst = std::max_element(m_population.begin(), m_population.end(),
                                            [](const Individual &a, const Individual &b) { return a.cost < b.cost; });
        const bool duplicate = std::any_of(m_population.begin(), m_population.end(),
                                           [&](const Individual &i) { return i.key == offspring.key; });
        if (offspring.cost < worst->cost && !duplicate)
            *worst = std::move(offspring);
    }

    // Polish the best until no move helps or the budget ends.
    m_deadline = finalDeadline;
    const auto best = std::min_element(m_population.begin(), m_population.end(),
                                       [](const Individual &a, const Individual &b) { return a.cost < b.cost; });
    m_state.reset(best->partition);
    localSearch(m_state, -1);

    const Partition &partition = m_state.partition();
    const std::span<const int> spareSpan = partition.spares();
    Schedule schedule
        = describeSchedule(m_model, partition.groups(), std::vector<int>(spareSpan.begin(), spareSpan.end()), m_order);
    schedule.seed = m_options.seed;
    schedule.evaluations = m_evaluations;
    schedule.trials = trials;
    schedule.seconds = m_options.clock() - m_start;
    schedule.origin = best->origin + (best->evolved ? ", evolved by crossover" : "") + ", polished by local search";
    return schedule;
}

Result<Schedule> schedule(const Problem &problem, const SearchOptions &options)
{
    if (Result<void> valid = validateProblem(problem); !valid)
        return valid.error();
    const int n = problem.deviceCount();
    const int layers = problem.model.layers;
    std::vector<Grid> grids;
    if (problem.grid.pipelineStages > 0 && problem.grid.dataParallel > 0) {
        grids.push_back(problem.grid);
    } else if (problem.grid.pipelineStages > 0) {
        grids.push_back({problem.grid.pipelineStages, n / problem.grid.pipelineStages});
    } else if (problem.grid.dataParallel > 0) {
        grids.push_back({std::min(n / problem.grid.dataParallel, layers), problem.grid.dataParallel});
    } else {
        for (int stages = 1; stages <= std::min(n, layers); ++stages) {
            if (n % stages == 0)
                grids.push_back({stages, n / stages});
        }
    }

    SearchOptions share = options;
    share.seconds = options.seconds / double(grids.size());
    std::optional<Schedule> best;
    std::string considered;
    for (const Grid &grid : grids) {
        const CostModel model(problem, grid.pipelineStages, grid.dataParallel);
        EvolutionarySearch search(model, share);
        Schedule candidate = search.run();
        considered += (considered.empty() ? "" : ", ") + std::to_string(grid.pipelineStages) + "x"
                      + std::to_string(grid.dataParallel)
                      + (candidate.feasible ? " " + formatSeconds(candidate.cost.total) : " infeasible");
        const bool better = !best || (candidate.feasible && !best->feasible)
                            || (candidate.feasible == best->feasible && candidate.cost.total < best->cost.total);
        if (better)
            best = std::move(candidate);
    }
    if (!best->feasible)
        return makeError("no assignment fits the devices' memory: " + best->why.substr(best->why.find("infeasible:")));
    if (grids.size() > 1)
        best->why += "grid chosen among stages x devices: " + considered + "\n";
    return *best;
}

} // namespace swarmtrain::scheduler

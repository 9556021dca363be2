#include "ParallelFor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace swarmtrain::kernels {

namespace {

// Set on the pool's threads and on a caller while it runs a chunk: parallelFor inside a chunk
// (attention inside a batch share, say) runs inline instead of waiting on the busy pool.
thread_local bool insideParallelRegion = false;

class WorkerPool {
public:
    explicit WorkerPool(int threads)
    {
        for (int i = 1; i < threads; ++i)
            m_workers.emplace_back([this, i] { workerLoop(i); });
    }

    ~WorkerPool()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        for (std::thread &worker : m_workers)
            worker.join();
    }

    int threads() const { return int(m_workers.size()) + 1; }

    // False, doing nothing, when another thread is running work on the pool (the embedded
    // coordinator's validation beside the worker's training, say): the caller then does the
    // work itself.
    bool tryRun(int chunks, const std::function<void(int)> &chunk)
    {
        std::unique_lock busy(m_busy, std::try_to_lock);
        if (!busy.owns_lock())
            return false;
        run(chunks, chunk);
        return true;
    }

private:
    void run(int chunks, const std::function<void(int)> &chunk)
    {
        {
            std::lock_guard lock(m_mutex);
            m_chunk = &chunk;
            m_chunks = chunks;
            m_pending = chunks - 1;
            ++m_generation;
        }
        m_wake.notify_all();
        chunk(0);
        std::unique_lock lock(m_mutex);
        m_done.wait(lock, [this] { return m_pending == 0; });
        m_chunk = nullptr;
    }

    void workerLoop(int index)
    {
        std::uint64_t seen = 0;
        for (;;) {
            const std::function<void(int)> *chunk = nullptr;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [&] { return m_stopping || m_generation != seen; });
                if (m_stopping)
                    return;
                seen = m_generation;
                if (index >= m_chunks)
                    continue;
                chunk = m_chunk;
            }
            insideParallelRegion = true;
            (*chunk)(index);
            insideParallelRegion = false;
            std::lock_guard lock(m_mutex);
            if (--m_pending == 0)
                m_done.notify_one();
        }
    }

    std::vector<std::thread> m_workers;
    std::mutex m_busy; // one run at a time
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(int)> *m_chunk = nullptr;
    int m_chunks = 0;
    int m_pending = 0;
    std::uint64_t m_generation = 0;
    bool m_stopping = false;
};

// Shared, so that a pool replaced by setParallelThreads() lives until its last run returns.
std::mutex poolMutex;
std::shared_ptr<WorkerPool> pool;

std::shared_ptr<WorkerPool> workerPool()
{
    std::lock_guard lock(poolMutex);
    if (!pool)
        pool = std::make_shared<WorkerPool>(int(std::max(1u, std::thread::hardware_concurrency())));
    return pool;
}

} // namespace

void setParallelThreads(int threads)
{
    std::lock_guard lock(poolMutex);
    threads = std::max(1, threads);
    if (!pool || pool->threads() != threads)
        pool = std::make_shared<WorkerPool>(threads);
}

int parallelThreads() { return workerPool()->threads(); }

void parallelFor(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)> &body)
{
    if (n <= 0)
        return;
    if (insideParallelRegion) {
        body(0, n);
        return;
    }
    const std::shared_ptr<WorkerPool> workers = workerPool();
    const std::int64_t chunks = std::min<std::int64_t>(workers->threads(), std::max<std::int64_t>(1, n / std::max<std::int64_t>(1, grain)));
    if (chunks == 1) {
        body(0, n);
        return;
    }
    insideParallelRegion = true;
    if (!workers->tryRun(int(chunks), [&](int i) { body(n * i / chunks, n * (i + 1) / chunks); }))
        body(0, n);
    insideParallelRegion = false;
}

void setBlasThreads(int threads)
{
    using SetThreads = void (*)(int);
    static const auto setOpenBlasThreads = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (setOpenBlasThreads)
        setOpenBlasThreads(std::max(1, threads));
}

} // namespace swarmtrain::kernels

#include "WorkerGroup.h"

#include <QLoggingCategory>

#include <algorithm>
#include <string_view>

namespace swarmtrain {

Q_LOGGING_CATEGORY(lcWorkerGroup, "swarmtrain.worker")

namespace {

constexpr std::string_view kWorkerFolderPrefix = "gpu-";

} // namespace

WorkerGroup::WorkerGroup(WorkerOptions options, const std::vector<std::string> &devices, QObject *parent)
    : QObject(parent)
{
    Q_ASSERT(!devices.empty());
    m_workers.resize(devices.size());
    for (std::size_t i = 0; i < devices.size(); ++i)
        m_workers[i].worker = std::make_unique<WorkController>(workerOptions(options, devices[i], int(i)));
}

WorkerGroup::~WorkerGroup()
{
    for (Member &member : m_workers)
        member.worker->stop(); // all told first, so they leave together
    m_workers.clear();         // each waits for its thread
}

WorkerOptions WorkerGroup::workerOptions(const WorkerOptions &base, const std::string &device, int index)
{
    WorkerOptions options = base;
    options.device = device;
    if (index == 0)
        return options;
    options.stateDir = base.stateDir / (std::string(kWorkerFolderPrefix) + std::to_string(index + 1));
    const auto next = [index](quint16 port) { return port == 0 ? port : quint16(std::min(65535, port + index)); };
    options.listenPort = next(base.listenPort);
    options.announcedPort = next(base.announcedPort);
    return options;
}

std::vector<std::filesystem::path> WorkerGroup::statsFolders(const std::filesystem::path &stateDir)
{
    std::vector<std::filesystem::path> folders{stateDir};
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator(stateDir, error)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(kWorkerFolderPrefix) && entry.is_directory(error) &&
            std::filesystem::exists(entry.path() / "stats.db", error))
            folders.push_back(entry.path());
    }
    std::sort(folders.begin() + 1, folders.end());
    return folders;
}

void WorkerGroup::start()
{
    for (std::size_t i = 0; i < m_workers.size(); ++i) {
        Member &member = m_workers[i];
        if (member.running)
            continue;
        WorkController *worker = member.worker.get();
        connect(worker, &WorkController::statusChanged, this,
                [this, i](const WorkStatus &status) { memberStatus(i, status); });
        connect(worker, &WorkController::roundFinished, this, &WorkerGroup::roundFinished);
        connect(worker, &WorkController::finished, this,
                [this, i](bool ok, const QString &message) { memberFinished(i, ok, message); });
        member.running = true;
        worker->start();
    }
}

void WorkerGroup::pause(const QString &reason, bool release)
{
    for (Member &member : m_workers)
        member.worker->pause(reason, release);
}

void WorkerGroup::setDuty(double duty)
{
    for (Member &member : m_workers)
        member.worker->setDuty(duty);
}

void WorkerGroup::resume()
{
    for (Member &member : m_workers)
        member.worker->resume();
}

void WorkerGroup::stop()
{
    for (Member &member : m_workers)
        member.worker->stop();
}

void WorkerGroup::abandon()
{
    for (Member &member : m_workers)
        member.worker->abandon();
}

void WorkerGroup::memberStatus(std::size_t index, const WorkStatus &status)
{
    m_workers[index].status = status;
    emitStatus();
}

void WorkerGroup::memberFinished(std::size_t index, bool ok, const QString &message)
{
    Member &member = m_workers[index];
    member.running = false;
    if (!ok) {
        qCWarning(lcWorkerGroup).noquote() << "the worker on" << QString::fromStdString(member.worker->device())
                                           << "stopped:" << message;
        if (!std::exchange(m_failed, true))
            m_failure = message;
    }
    if (std::none_of(m_workers.begin(), m_workers.end(), [](const Member &m) { return m.running; })) {
        Q_EMIT finished(!m_failed, m_failure);
        return;
    }
    emitStatus();
}

void WorkerGroup::emitStatus()
{
    const auto first = std::find_if(m_workers.begin(), m_workers.end(), [](const Member &m) { return m.running; });
    if (first == m_workers.end())
        return;
    WorkStatus status = first->status;
    status.tokensPerSecond = 0.0;
    status.workers = 0;
    for (const Member &member : m_workers) {
        if (member.running) {
            status.tokensPerSecond += member.status.tokensPerSecond;
            ++status.workers;
        }
    }
    Q_EMIT statusChanged(status);
}

} // namespace swarmtrain

#pragma once

#include "CoordinatorConfig.h"

#include <QObject>
#include <QString>

#include <memory>

class QThread;

namespace swarmtrain {

// A coordinator inside the desktop client ("Host a swarm on this PC"): the same server as
// swarmtrain-coordinator, on a thread of its own so that computing a round's validation loss
// never blocks the window. start() answers with started() or failed(), queued.
class EmbeddedCoordinator : public QObject {
    Q_OBJECT

public:
    explicit EmbeddedCoordinator(CoordinatorConfig config, QObject *parent = nullptr);
    ~EmbeddedCoordinator() override; // stops it and waits

    void start();
    void stop();
    bool isRunning() const;
    QString url() const { return m_url; }                 // valid after started()
    QString fingerprint() const { return m_fingerprint; } // "" without TLS

Q_SIGNALS:
    // `url` as peers on this machine reach it (http(s)://127.0.0.1:PORT when listening on every
    // address); `fingerprint` is the certificate's pin, "" without TLS.
    void started(const QString &url, const QString &fingerprint);
    void failed(const QString &message);

private:
    CoordinatorConfig m_config;
    std::unique_ptr<QThread> m_thread;
    QString m_url;
    QString m_fingerprint;
};

} // namespace swarmtrain

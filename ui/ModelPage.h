#pragma once

#include "ClientSession.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace swarmtrain {

// What the swarm is training, in the volunteer's hands: the model (round, size, bits per byte),
// the coordinator's published downloads, and a prompt box whose continuation the model writes
// token by token. Training pauses for those few seconds, and the window says why.
class ModelPage : public QWidget {
    Q_OBJECT

public:
    explicit ModelPage(ClientSession &session, QWidget *parent = nullptr);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void showSwarm(const SwarmSnapshot &snapshot);
    void start();
    void append(const QString &text);
    void finished(bool ok, const QString &summary);

    ClientSession &m_session;
    SwarmSnapshot m_snapshot;
    QLabel *m_title = nullptr;
    QLabel *m_model = nullptr;
    QLabel *m_downloadsTitle = nullptr;
    QLabel *m_downloads = nullptr;
    QLabel *m_promptTitle = nullptr;
    QLineEdit *m_prompt = nullptr;
    QPushButton *m_write = nullptr;
    QPlainTextEdit *m_output = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace swarmtrain

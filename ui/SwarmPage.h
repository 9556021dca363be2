#pragma once

#include "ClientSession.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace swarmtrain {

class ClientSession;
struct CoordinatorConfig;
struct SessionState;

// Which swarm this PC trains with (its address, peers online, round, model and this PC's
// role), its leaderboard with this PC's row marked, joining one from an address or an invite
// link, leaving it, and "Host a swarm on this PC": an embedded coordinator training on a text
// file, with the invite link to give friends.
class SwarmPage : public QWidget {
    Q_OBJECT

public:
    explicit SwarmPage(ClientSession &session, QWidget *parent = nullptr);
    ~SwarmPage() override;

    // The hosted swarm's settings as the form gives them (public for tests).
    CoordinatorConfig hostedConfig() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    QWidget *buildCurrentCard();
    QWidget *buildJoinCard();
    QWidget *buildHostCard();
    QWidget *buildLeaderboardCard();
    void retranslate();
    void showState(const SessionState &state);
    void showSwarm(const SwarmSnapshot &snapshot);
    void showHosting(bool hosting, const QString &invite, const QString &error);
    void showCurrent();
    // The top of the leaderboard, and this PC's row below it when it ranks lower.
    void showLeaderboard();
    void showPastedPin();
    void join();
    void startHosting();
    void chooseData();
    void setMessage(QLabel *label, const QString &text, bool error);

    ClientSession &m_session;
    bool m_haveSnapshot = false;
    bool m_reachable = false;
    QString m_swarmError;
    qint64 m_swarmRound = 0;
    int m_peers = 0;
    QString m_model;
    QVector<SwarmSnapshot::Stage> m_stages;
    int m_bottleneck = -1;
    QString m_hostError;
    bool m_hostStarting = false;
    std::vector<StatusAnswer::Leader> m_leaders; // as the last status ranked them
    QString m_ownPeerId;

    QLabel *m_currentTitle = nullptr;
    QFormLayout *m_currentForm = nullptr;
    QLabel *m_url = nullptr;
    QLabel *m_peersValue = nullptr;
    QLabel *m_round = nullptr;
    QLabel *m_modelValue = nullptr;
    QLabel *m_role = nullptr;
    QLabel *m_stagesValue = nullptr; // a pipeline swarm's stages, one a line
    QLabel *m_pin = nullptr;
    QLabel *m_reach = nullptr;
    QPushButton *m_leave = nullptr;

    QLabel *m_leaderboardTitle = nullptr;
    QLabel *m_leaderboardNote = nullptr; // why the table is empty
    QTableWidget *m_leaderboard = nullptr;

    QLabel *m_joinTitle = nullptr;
    QLabel *m_joinHelp = nullptr;
    QFormLayout *m_joinForm = nullptr;
    QLineEdit *m_joinEdit = nullptr;
    QLineEdit *m_pastedPin = nullptr;
    QPushButton *m_joinButton = nullptr;
    QCheckBox *m_allowPlainHttp = nullptr;
    QLabel *m_joinMessage = nullptr;

    QLabel *m_hostTitle = nullptr;
    QLabel *m_hostHelp = nullptr;
    QFormLayout *m_hostForm = nullptr;
    QLineEdit *m_dataEdit = nullptr;
    QPushButton *m_browse = nullptr;
    QSpinBox *m_port = nullptr;
    QComboBox *m_modelSize = nullptr;
    QPushButton *m_startHosting = nullptr;
    QPushButton *m_stopHosting = nullptr;
    QLabel *m_hostMessage = nullptr;
    QLabel *m_inviteCaption = nullptr;
    QLineEdit *m_invite = nullptr;
    QPushButton *m_copyInvite = nullptr;
};

} // namespace swarmtrain

// The Model page: the swarm's model and what it publishes, and a prompt the model continues
// token by token while training is paused for it, the window saying why.
#include "ModelPage.h"
#include "GuiTest.h"

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include <iostream>

using namespace swarmtrain;

namespace {

class ModelPageTest : public test::GuiTest {};

} // namespace

TEST_F(ModelPageTest, WritesOnFromAPromptWhileTrainingPausesForIt)
{
    test::TestSwarm swarm(dir().path());
    ASSERT_TRUE(swarm.start(20, {"--export-every", "1"})) << swarm.errors();
    ModelPage page(session());
    page.resize(900, 640);
    page.show();
    auto *summary = page.findChild<QLabel *>(QStringLiteral("modelSummary"));
    auto *downloads = page.findChild<QLabel *>(QStringLiteral("modelDownloads"));
    auto *prompt = page.findChild<QLineEdit *>(QStringLiteral("prompt"));
    auto *write = page.findChild<QPushButton *>(QStringLiteral("writeButton"));
    auto *output = page.findChild<QPlainTextEdit *>(QStringLiteral("continuation"));
    auto *status = page.findChild<QLabel *>(QStringLiteral("generationStatus"));
    ASSERT_TRUE(summary && downloads && prompt && write && output && status);

    QSignalSpy rounds(&session(), &ClientSession::roundFinished);
    ASSERT_TRUE(session().join(swarm.url()).ok());
    ASSERT_TRUE(rounds.wait(50'000)) << swarm.errors();
    // The model, its round, and the published downloads (--export-every 1).
    ASSERT_TRUE(QTest::qWaitFor([&] { return downloads->text().contains(QLatin1StringView("model.safetensors")); }, 60'000))
        << summary->text().toStdString() << " / " << downloads->text().toStdString() << "\n" << swarm.errors();
    EXPECT_TRUE(summary->text().contains(QLatin1StringView("round"))) << summary->text().toStdString();
    EXPECT_TRUE(QTest::qWaitFor([&] { return downloads->text().contains(QLatin1StringView("tokens trained")); }, 10'000))
        << downloads->text().toStdString();

    // Whatever headlines the window shows while the model writes.
    QStringList headlines;
    QObject::connect(&session(), &ClientSession::stateChanged, &page,
                     [&](const SessionState &state) { headlines << state.headline; });
    QSignalSpy pieces(&session(), &ClientSession::generatedText);
    QSignalSpy finished(&session(), &ClientSession::generationFinished);
    QTest::keyClicks(prompt, QStringLiteral("the "));
    QTest::mouseClick(write, Qt::LeftButton);
    ASSERT_TRUE(finished.wait(60'000)) << status->text().toStdString();
    EXPECT_TRUE(finished.first().at(0).toBool()) << finished.first().at(1).toString().toStdString();
    EXPECT_GE(pieces.count(), 2); // token by token, not all at once
    EXPECT_TRUE(output->toPlainText().startsWith(QLatin1StringView("the ")));
    EXPECT_GT(output->toPlainText().size(), 8) << output->toPlainText().toStdString();
    EXPECT_TRUE(headlines.contains(QStringLiteral("Paused: the model is writing the text you asked for")))
        << headlines.join(QStringLiteral(" | ")).toStdString();
    // ...and training goes on after.
    EXPECT_TRUE(QTest::qWaitFor([&] { return session().state().decision.reason != PauseReason::Generating; }, 10'000));
    EXPECT_TRUE(write->isEnabled());
    EXPECT_TRUE(status->text().startsWith(QLatin1StringView("Done")));

    const QDir folder(QStringLiteral(SWARMTRAIN_SCREENSHOT_DIR));
    ASSERT_TRUE(folder.mkpath(QStringLiteral(".")));
    const QString shot = folder.filePath(QStringLiteral("model-page-generated.png"));
    EXPECT_TRUE(page.grab().save(shot));
    std::cout << "screenshot: " << shot.toStdString() << "\ncontinuation: " << output->toPlainText().toStdString()
              << "\n" << status->text().toStdString() << std::endl;
}

// The GUI tests' main: one QApplication for the whole process, on the offscreen platform unless
// the environment names another (ctest sets QT_QPA_PLATFORM=offscreen; Xvfb works too).
#include <QApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("SwarmTrain"));
    QApplication::setOrganizationName(QStringLiteral("SwarmTrain"));
    // Closing a window in a test must not end the application's event loops: the tests wait on
    // signals with nested loops, which QCoreApplication::quit() would end for good.
    QApplication::setQuitOnLastWindowClosed(false);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

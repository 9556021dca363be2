#pragma once

#include <QCoreApplication>

namespace swarmtrain::test {

// The one QCoreApplication of a test process, made on first use (event loops, sockets and
// timers need it). Never destroyed: Qt objects in static storage may outlive main().
inline QCoreApplication &application()
{
    static int argc = 1;
    static char name[] = "swarmtrain_tests";
    static char *argv[] = {name, nullptr};
    static QCoreApplication *app =
        QCoreApplication::instance() ? QCoreApplication::instance() : new QCoreApplication(argc, argv);
    return *app;
}

} // namespace swarmtrain::test

#pragma once

namespace swarmtrain {

// Keeps OpenSSL's global state alive until the process is gone. By default OpenSSL frees it
// in an atexit handler, while a QThread that used it (the data plane's, the worker's, the
// coordinator's pool) may still be running its thread-local destructors: QThread::wait()
// returns before those run, and OpenSSL's takes a lock the handler has freed, corrupting the
// heap (a Ctrl-C that ended in SIGABRT, "malloc_consolidate(): invalid chunk size"). Call it
// first thing in main(), before anything touches OpenSSL; later calls do nothing.
void keepCryptoUntilExit();

// Frees this thread's OpenSSL state now, for a thread about to end: the last thing the data
// plane's network thread does, so nothing of OpenSSL runs once it has been waited for.
void releaseThreadCrypto();

} // namespace swarmtrain

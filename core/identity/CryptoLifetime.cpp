#include "CryptoLifetime.h"

#include <openssl/crypto.h>

namespace swarmtrain {

void keepCryptoUntilExit() { OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr); }

void releaseThreadCrypto() { OPENSSL_thread_stop(); }

} // namespace swarmtrain

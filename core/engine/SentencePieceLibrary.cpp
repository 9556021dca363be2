#include "SentencePieceLibrary.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <mutex>

namespace swarmtrain {

namespace {

// RTLD_DEEPBIND keeps the module's bundled protobuf-lite away from LibTorch's libprotobuf
// (SentencePieceLibrary.h). AddressSanitizer refuses it; its builds (tests/fuzz) load no LibTorch.
#if defined(__SANITIZE_ADDRESS__)
#define SWARMTRAIN_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWARMTRAIN_UNDER_ASAN 1
#endif
#endif
#ifdef SWARMTRAIN_UNDER_ASAN
constexpr int kModuleScope = RTLD_LOCAL;
#else
constexpr int kModuleScope = RTLD_LOCAL | RTLD_DEEPBIND;
#endif

Result<const SentencePieceLibraryApi *> load()
{
    std::vector<std::string> candidates;
    if (const char *chosen = std::getenv("SWARMTRAIN_SENTENCEPIECE_MODULE"); chosen && *chosen)
        candidates.emplace_back(chosen);
    candidates.emplace_back(SWARMTRAIN_SENTENCEPIECE_BUILD_MODULE);
    // Installed: beside the program's bin/ folder, in its package's private library folder.
    std::error_code ec;
    const std::filesystem::path lib = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "lib";
    if (!ec) {
        for (const char *package : {"swarmtrain", "swarmtrain-coordinator"})
            candidates.push_back((lib / package / "libswarmtrain_sentencepiece.so").string());
    }
    std::string tried;
    for (const std::string &path : candidates) {
        if (path.empty() || !std::filesystem::exists(path, ec)) {
            tried += (tried.empty() ? "" : ", ") + path + " (missing)";
            continue;
        }
        void *handle = dlopen(path.c_str(), RTLD_NOW | kModuleScope);
        if (!handle) {
            const char *why = dlerror();
            tried += (tried.empty() ? "" : ", ") + path + " (" + (why ? why : "cannot load") + ")";
            continue;
        }
        const auto entry = reinterpret_cast<SentencePieceEntry>(dlsym(handle, kSentencePieceEntry));
        if (!entry)
            return makeError(path + " is not SwarmTrain's SentencePiece module");
        return entry(); // the module stays loaded for the process's life
    }
    return makeError("SentencePiece is not available: " + tried
                     + " (install libsentencepiece-dev and rebuild, or set SWARMTRAIN_SENTENCEPIECE_MODULE)");
}

} // namespace

Result<const SentencePieceLibraryApi *> sentencePieceLibrary()
{
    static std::once_flag once;
    static Result<const SentencePieceLibraryApi *> library = makeError("not loaded");
    std::call_once(once, [] { library = load(); });
    return library;
}

} // namespace swarmtrain

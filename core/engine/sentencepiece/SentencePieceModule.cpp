// SwarmTrain's SentencePiece module: the library behind SentencePieceLibrary.h's interface,
// built as a shared module and loaded with a symbol scope of its own (see that header).
#include "SentencePieceLibrary.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

// Exported by libsentencepiece, declared in none of its installed headers.
namespace sentencepiece::logging {
void SetMinLogLevel(int level);
}

namespace swarmtrain {

namespace {

class Processor : public SentencePieceProcessorApi {
public:
    sentencepiece::SentencePieceProcessor processor;

    int pieceCount() const override { return processor.GetPieceSize(); }
    int eosId() const override { return processor.eos_id(); }

    std::string encode(std::string_view text, std::vector<int> &ids) const override
    {
        const auto status = processor.Encode(text, &ids);
        return status.ok() ? std::string() : std::string(status.message());
    }
};

class LineIterator : public sentencepiece::SentenceIterator {
public:
    explicit LineIterator(const std::function<bool(std::string &)> &next) : m_next(next) { Next(); }
    bool done() const override { return m_done; }
    void Next() override { m_done = !m_next(m_line); }
    const std::string &value() const override { return m_line; }
    sentencepiece::util::Status status() const override { return {}; }

private:
    const std::function<bool(std::string &)> &m_next;
    std::string m_line;
    bool m_done = false;
};

class Library : public SentencePieceLibraryApi {
public:
    std::unique_ptr<SentencePieceProcessorApi> load(std::string_view model, std::string &error) const override
    {
        auto processor = std::make_unique<Processor>();
        if (const auto status = processor->processor.LoadFromSerializedProto(model); !status.ok()) {
            error = status.message();
            return nullptr;
        }
        return processor;
    }

    std::string train(const std::unordered_map<std::string, std::string> &args, std::uint32_t seed,
                      const std::function<bool(std::string &)> &nextLine, std::string &model) const override
    {
        sentencepiece::SetRandomGeneratorSeed(seed);
        LineIterator lines(nextLine);
        const auto status = sentencepiece::SentencePieceTrainer::Train(args, &lines, &model);
        return status.ok() ? std::string() : std::string(status.message());
    }
};

} // namespace

} // namespace swarmtrain

extern "C" __attribute__((visibility("default"))) const swarmtrain::SentencePieceLibraryApi *swarmtrain_sentencepiece_library()
{
    // The library logs to std::cerr. Loaded with its own symbol scope, it binds std::cerr to
    // libstdc++'s own instance, which is never constructed when the program's copy is the one
    // in use (a copy relocation): only fatal messages are let through, and they end the process
    // whichever way they go.
    static const swarmtrain::Library *library = [] {
        sentencepiece::logging::SetMinLogLevel(3);
        return new swarmtrain::Library;
    }();
    return library;
}

#include "CorpusReader.h"

#include "JsonLinesReader.h"
#include "TextDocumentReader.h"
#include "TokenBinReader.h"

namespace swarmtrain {

CorpusReader::CorpusReader(const CorpusInputs &inputs, CorpusReadOptions options, std::optional<TokenSpace> tokens,
                           std::function<void(const std::string &)> log)
    : m_inputs(inputs)
    , m_options(std::move(options))
    , m_tokens(tokens)
    , m_log(log)
    , m_bad(m_options.onBadRecord, std::move(log))
{
}

CorpusReader::~CorpusReader() = default;

Result<bool> CorpusReader::openNextFile()
{
    while (m_nextFile < m_inputs.files.size()) {
        const CorpusFile &file = m_inputs.files[m_nextFile++];
        const std::string name = file.path.string();
        if (file.format == CorpusFormat::TokenBin) {
            if (!m_tokens) {
                if (m_log)
                    m_log("passing over " + name + ": its tokens are not text to learn from");
                m_bytesDone += file.bytes;
                continue;
            }
            Result<RawFile> raw = RawFile::open(file.path);
            if (!raw)
                return raw.error();
            m_reader = std::make_unique<TokenBinReader>(std::move(raw).value(), name, *m_tokens, m_bad,
                                                        m_options.maxDocumentTokens);
            return true;
        }
        Result<std::unique_ptr<ByteSource>> source = openByteSource(file.path, file.compression);
        if (!source)
            return source.error();
        if (file.format == CorpusFormat::JsonLines)
            m_reader = std::make_unique<JsonLinesReader>(std::move(source).value(), name, m_options.textField, m_bad,
                                                         m_options.maxLineBytes);
        else
            m_reader = std::make_unique<TextDocumentReader>(std::move(source).value(), name, m_bad,
                                                            m_options.maxLineBytes, m_options.maxDocumentBytes);
        return true;
    }
    return false;
}

Result<bool> CorpusReader::next(Document &document)
{
    for (;;) {
        if (!m_reader) {
            Result<bool> opened = openNextFile();
            if (!opened || !*opened)
                return opened;
        }
        Result<bool> got = m_reader->next(document);
        if (!got || *got)
            return got;
        m_reader.reset();
        m_bytesDone += m_inputs.files[m_nextFile - 1].bytes;
    }
}

} // namespace swarmtrain

#include "JsonLinesReader.h"

#include <nlohmann/json.hpp>

namespace swarmtrain {

namespace {

using json = nlohmann::json;

// Keeps the top-level object's `field`; everything else is parsed and dropped.
class FieldPicker : public nlohmann::json_sax<json> {
public:
    explicit FieldPicker(const std::string &field) : m_field(field) {}

    bool null() override { return value("null"); }
    bool boolean(bool) override { return value("a boolean"); }
    bool number_integer(number_integer_t) override { return value("a number"); }
    bool number_unsigned(number_unsigned_t) override { return value("a number"); }
    bool number_float(number_float_t, const string_t &) override { return value("a number"); }
    bool binary(binary_t &) override { return value("binary data"); }
    bool string(string_t &text) override
    {
        if (atField()) {
            found = true;
            this->text = std::move(text);
            m_atField = false;
            return true;
        }
        return value("a string");
    }
    bool start_object(std::size_t) override
    {
        if (m_depth == 0)
            isObject = true;
        return open("an object");
    }
    bool key(string_t &name) override
    {
        m_atField = m_depth == 1 && !found && name == m_field;
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open("an array"); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &error) override
    {
        parseError = error.what();
        return false;
    }

    std::string parseError;
    std::string text;
    std::string wrongType; // what the field held instead of a string
    bool isObject = false;
    bool found = false;

private:
    bool atField() const { return m_atField && m_depth == 1; }
    bool value(const char *what)
    {
        if (atField()) {
            wrongType = what;
            m_atField = false;
        }
        return true;
    }
    bool open(const char *what)
    {
        value(what);
        ++m_depth;
        return true;
    }
    bool close()
    {
        --m_depth;
        return true;
    }

    const std::string &m_field;
    int m_depth = 0;
    bool m_atField = false;
};

bool isBlank(const std::string &line)
{
    return line.find_first_not_of(" \t\r\f\v") == std::string::npos;
}

} // namespace

JsonLinesReader::JsonLinesReader(std::unique_ptr<ByteSource> source, std::string name, std::string field,
                                 BadRecords &bad, std::size_t maxLineBytes)
    : m_lines(std::move(source), maxLineBytes)
    , m_name(std::move(name))
    , m_field(std::move(field))
    , m_bad(bad)
{
}

std::string JsonLinesReader::extractText(const std::string &line, const std::string &field, std::string &text)
{
    FieldPicker picker(field);
    const bool parsed = json::sax_parse(line, &picker, json::input_format_t::json, /*strict=*/true);
    if (!parsed)
        return "not JSON (" + picker.parseError + ")";
    if (!picker.isObject)
        return "not a JSON object";
    if (!picker.wrongType.empty())
        return "its \"" + field + "\" field is " + picker.wrongType + ", not a string";
    if (!picker.found)
        return "it has no \"" + field + "\" field";
    text = std::move(picker.text);
    return {};
}

Result<bool> JsonLinesReader::next(Document &document)
{
    document = Document{};
    while (!m_done) {
        Result<LineReader::Status> status = m_lines.next(m_line);
        if (!status) {
            m_done = true;
            if (Result<void> reported = m_bad.report(m_name + ":" + std::to_string(m_lines.lineNumber() + 1),
                                                     status.error().message);
                !reported)
                return reported.error();
            return false;
        }
        if (*status == LineReader::Status::End) {
            m_done = true;
            return false;
        }
        const std::string where = m_name + ":" + std::to_string(m_lines.lineNumber());
        if (*status == LineReader::Status::TooLong) {
            if (Result<void> reported = m_bad.report(where, "the line is longer than the limit"); !reported)
                return reported.error();
            continue;
        }
        if (isBlank(m_line))
            continue;
        if (const std::string why = extractText(m_line, m_field, document.text); !why.empty()) {
            if (Result<void> reported = m_bad.report(where, why); !reported)
                return reported.error();
            continue;
        }
        if (document.text.empty())
            continue;
        document.where = where;
        return true;
    }
    return false;
}

} // namespace swarmtrain

#include "JsonReader.h"

#include <cmath>

namespace swarmtrain {

JsonReader::JsonReader(QJsonObject object, QString path)
    : JsonReader(std::move(object), std::move(path), std::make_shared<std::optional<std::string>>())
{
}

JsonReader::JsonReader(QJsonObject object, QString path, std::shared_ptr<std::optional<std::string>> error)
    : m_object(std::move(object)), m_path(std::move(path)), m_error(std::move(error))
{
}

QString JsonReader::pathOf(QLatin1StringView name) const { return m_path + QLatin1Char('.') + name; }

void JsonReader::failPath(const QString &path, const QString &why)
{
    if (ok())
        *m_error = (path + QLatin1Char(' ') + why).toStdString();
}

void JsonReader::fail(QLatin1StringView name, const QString &why) { failPath(pathOf(name), why); }

bool JsonReader::has(QLatin1StringView name) const
{
    const QJsonValue value = m_object.value(name);
    return !value.isUndefined() && !value.isNull();
}

std::optional<QJsonValue> JsonReader::required(QLatin1StringView name)
{
    if (!ok())
        return std::nullopt;
    if (!has(name)) {
        fail(name, QStringLiteral("is missing"));
        return std::nullopt;
    }
    return m_object.value(name);
}

std::optional<qint64> JsonReader::exactInteger(const QJsonValue &value) const
{
    if (!value.isDouble())
        return std::nullopt;
    const double number = value.toDouble();
    if (!std::isfinite(number) || number != std::floor(number) || std::fabs(number) > double(kMaxExactInteger))
        return std::nullopt;
    return qint64(number);
}

qint64 JsonReader::integer(QLatin1StringView name, qint64 min, qint64 max)
{
    const std::optional<QJsonValue> value = required(name);
    if (!value)
        return min;
    const std::optional<qint64> number = exactInteger(*value);
    if (!number || !fits(*number, min, max)) {
        fail(name, QStringLiteral("must be an integer from %1 to %2").arg(min).arg(max));
        return min;
    }
    return *number;
}

qint64 JsonReader::integer(QLatin1StringView name, qint64 min, qint64 max, qint64 absent)
{
    return has(name) ? integer(name, min, max) : absent;
}

double JsonReader::number(QLatin1StringView name, double min, double max)
{
    const std::optional<QJsonValue> value = required(name);
    if (!value)
        return min;
    const double number = value->toDouble();
    if (!value->isDouble() || !std::isfinite(number) || number < min || number > max) {
        fail(name, QStringLiteral("must be a number from %1 to %2").arg(min).arg(max));
        return min;
    }
    return number;
}

double JsonReader::number(QLatin1StringView name, double min, double max, double absent)
{
    return has(name) ? number(name, min, max) : absent;
}

bool JsonReader::boolean(QLatin1StringView name)
{
    const std::optional<QJsonValue> value = required(name);
    if (value && !value->isBool())
        fail(name, QStringLiteral("must be true or false"));
    return value && value->toBool();
}

std::optional<bool> JsonReader::optionalBoolean(QLatin1StringView name)
{
    if (!has(name))
        return std::nullopt;
    return boolean(name);
}

QString JsonReader::string(QLatin1StringView name, qsizetype maxChars)
{
    const std::optional<QJsonValue> value = required(name);
    if (!value)
        return {};
    if (!value->isString() || value->toString().size() > maxChars) {
        fail(name, QStringLiteral("must be a string of at most %1 characters").arg(maxChars));
        return {};
    }
    return value->toString();
}

QString JsonReader::text(QLatin1StringView name, qsizetype maxChars, const QString &absent)
{
    if (!has(name))
        return absent;
    const QJsonValue value = m_object.value(name);
    if (!value.isString()) {
        fail(name, QStringLiteral("must be a string"));
        return absent;
    }
    return value.toString().left(maxChars);
}

QString JsonReader::oneOf(QLatin1StringView name, std::initializer_list<QLatin1StringView> allowed)
{
    const std::optional<QJsonValue> value = required(name);
    if (!value)
        return {};
    const QString text = value->toString();
    for (QLatin1StringView choice : allowed) {
        if (value->isString() && text == choice)
            return text;
    }
    QStringList names;
    for (QLatin1StringView choice : allowed)
        names.append(choice);
    fail(name, QStringLiteral("must be one of %1").arg(names.join(QStringLiteral(", "))));
    return {};
}

QString JsonReader::sha256Hex(QLatin1StringView name)
{
    const QString hex = string(name, 64);
    const bool lowerHex = std::all_of(hex.begin(), hex.end(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
    });
    if (ok() && (hex.size() != 64 || !lowerHex)) {
        fail(name, QStringLiteral("must be 64 lowercase hex digits (a SHA-256)"));
        return {};
    }
    return hex;
}

QByteArray JsonReader::base64(QLatin1StringView name, qsizetype bytes)
{
    const QString encoded = string(name, 4 * (bytes / 3 + 1));
    if (!ok())
        return {};
    const auto decoded = QByteArray::fromBase64Encoding(encoded.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.size() != bytes) {
        fail(name, QStringLiteral("must be %1 bytes in base64").arg(bytes));
        return {};
    }
    return decoded.decoded;
}

QByteArray JsonReader::base64AtMost(QLatin1StringView name, qsizetype maxBytes)
{
    const QString encoded = string(name, 4 * (maxBytes / 3 + 1));
    if (!ok())
        return {};
    const auto decoded = QByteArray::fromBase64Encoding(encoded.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.isEmpty() || decoded.decoded.size() > maxBytes) {
        fail(name, QStringLiteral("must be 1 to %1 bytes in base64").arg(maxBytes));
        return {};
    }
    return decoded.decoded;
}

JsonReader JsonReader::object(QLatin1StringView name)
{
    const std::optional<QJsonValue> value = required(name);
    if (value && !value->isObject())
        fail(name, QStringLiteral("must be a JSON object"));
    return JsonReader(value ? value->toObject() : QJsonObject(), pathOf(name), m_error);
}

QJsonArray JsonReader::array(QLatin1StringView name, qsizetype maxItems)
{
    const std::optional<QJsonValue> value = required(name);
    if (!value)
        return {};
    if (!value->isArray() || value->toArray().size() > maxItems) {
        fail(name, QStringLiteral("must be an array of at most %1 items").arg(maxItems));
        return {};
    }
    return value->toArray();
}

JsonReader JsonReader::element(const QJsonArray &array, QLatin1StringView arrayName, qsizetype index)
{
    const QString path = pathOf(arrayName) + QStringLiteral("[%1]").arg(index);
    const QJsonValue value = array.at(index);
    if (!value.isObject())
        failPath(path, QStringLiteral("must be a JSON object"));
    return JsonReader(value.toObject(), path, m_error);
}

qint64 JsonReader::integerAt(const QJsonArray &array, QLatin1StringView arrayName, qsizetype index, qint64 min,
                             qint64 max)
{
    const std::optional<qint64> number = exactInteger(array.at(index));
    if (!number || !fits(*number, min, max)) {
        failPath(pathOf(arrayName) + QStringLiteral("[%1]").arg(index),
                 QStringLiteral("must be an integer from %1 to %2").arg(min).arg(max));
        return min;
    }
    return *number;
}

QString JsonReader::stringAt(const QJsonArray &array, QLatin1StringView arrayName, qsizetype index,
                             qsizetype maxChars)
{
    const QJsonValue value = array.at(index);
    if (!value.isString() || value.toString().size() > maxChars) {
        failPath(pathOf(arrayName) + QStringLiteral("[%1]").arg(index),
                 QStringLiteral("must be a string of at most %1 characters").arg(maxChars));
        return {};
    }
    return value.toString();
}

QStringList JsonReader::optionalStrings(QLatin1StringView name, qsizetype maxItems, qsizetype maxChars)
{
    QStringList strings;
    if (!has(name))
        return strings;
    const QJsonArray list = array(name, maxItems);
    for (qsizetype i = 0; i < list.size() && ok(); ++i)
        strings.append(stringAt(list, name, i, maxChars));
    return strings;
}

} // namespace swarmtrain

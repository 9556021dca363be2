#pragma once

#include "Result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <initializer_list>
#include <memory>
#include <optional>

namespace swarmtrain {

// Reads a control-plane message field by field, each against its bound. The first field that
// breaks one becomes the error, named by its path and the bound ("heartbeat.base_round must be
// an integer from -1 to 9007199254740992"); later reads return their fallbacks and change
// nothing. Child readers (nested objects, array elements) share the parent's error.
class JsonReader {
public:
    // Integers travel as JSON numbers, exact up to 2^53.
    static constexpr qint64 kMaxExactInteger = qint64(1) << 53;

    JsonReader(QJsonObject object, QString path);

    // Required fields.
    qint64 integer(QLatin1StringView name, qint64 min, qint64 max);
    double number(QLatin1StringView name, double min, double max);
    bool boolean(QLatin1StringView name);
    QString string(QLatin1StringView name, qsizetype maxChars);
    QString oneOf(QLatin1StringView name, std::initializer_list<QLatin1StringView> allowed);
    QString sha256Hex(QLatin1StringView name); // 64 lowercase hex digits
    QByteArray base64(QLatin1StringView name, qsizetype bytes); // exactly `bytes` once decoded
    QByteArray base64AtMost(QLatin1StringView name, qsizetype maxBytes); // 1 to `maxBytes` once decoded
    JsonReader object(QLatin1StringView name);
    QJsonArray array(QLatin1StringView name, qsizetype maxItems);

    // Optional fields: missing or null gives `absent`.
    qint64 integer(QLatin1StringView name, qint64 min, qint64 max, qint64 absent);
    double number(QLatin1StringView name, double min, double max, double absent);
    std::optional<bool> optionalBoolean(QLatin1StringView name);
    // Free text, cut to `maxChars`.
    QString text(QLatin1StringView name, qsizetype maxChars, const QString &absent = {});
    bool has(QLatin1StringView name) const;

    // Elements of an array read with array(): index names them ("join.shards[3]").
    JsonReader element(const QJsonArray &array, QLatin1StringView arrayName, qsizetype index);
    qint64 integerAt(const QJsonArray &array, QLatin1StringView arrayName, qsizetype index, qint64 min, qint64 max);
    QString stringAt(const QJsonArray &array, QLatin1StringView arrayName, qsizetype index, qsizetype maxChars);
    // An optional array of at most `maxItems` strings of at most `maxChars` each (absent: empty).
    QStringList optionalStrings(QLatin1StringView name, qsizetype maxItems, qsizetype maxChars);

    // Marks the message bad for a reason the field readers cannot see (two fields that disagree).
    void fail(QLatin1StringView name, const QString &why);
    bool ok() const { return !m_error->has_value(); }
    Error error() const { return makeError(m_error->value_or(std::string())); }

    template <typename T>
    Result<T> finish(T value) const
    {
        if (!ok())
            return error();
        return value;
    }

private:
    JsonReader(QJsonObject object, QString path, std::shared_ptr<std::optional<std::string>> error);
    QString pathOf(QLatin1StringView name) const;
    // The field, or nullopt after recording "is missing" (or when an error is already set).
    std::optional<QJsonValue> required(QLatin1StringView name);
    bool fits(qint64 value, qint64 min, qint64 max) const { return value >= min && value <= max; }
    std::optional<qint64> exactInteger(const QJsonValue &value) const;
    void failPath(const QString &path, const QString &why);

    QJsonObject m_object;
    QString m_path;
    std::shared_ptr<std::optional<std::string>> m_error;
};

} // namespace swarmtrain

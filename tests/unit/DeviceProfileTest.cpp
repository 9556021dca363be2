#include "DeviceProfile.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <fstream>
#include <sstream>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

std::string readText(const std::filesystem::path &file)
{
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Replaces the stored FLOP/s, so a later call shows whether it measured again or read the file.
void markStoredFlops(const std::filesystem::path &file, double flops)
{
    QJsonObject profile = QJsonDocument::fromJson(QByteArray::fromStdString(readText(file))).object();
    QJsonObject capability = profile.value(QStringLiteral("capability")).toObject();
    capability.insert(QStringLiteral("flops_per_s"), flops);
    profile.insert(QStringLiteral("capability"), capability);
    std::ofstream(file, std::ios::trunc) << QJsonDocument(profile).toJson().toStdString();
}

} // namespace

TEST(DeviceProfileTest, MeasuresOnceAndKeepsTheFigureUntilThePcChanges)
{
    TempDir dir;
    DeviceProfileOptions options;
    options.device = "cpu";
    options.threads = 1;
    const Result<DeviceReport> first = loadOrMeasureDeviceProfile(dir.path(), options);
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_EQ(first->kind, QStringLiteral("cpu"));
    EXPECT_GT(first->flopsPerSecond, 0.0);
    EXPECT_GT(first->hostToDeviceBytesPerSecond, 0.0);
    EXPECT_GT(first->trainingMemoryBytes, 0);
    const std::filesystem::path file = dir.path() / "device-profile.json";
    ASSERT_TRUE(std::filesystem::exists(file));

    markStoredFlops(file, 1234.5);
    EXPECT_DOUBLE_EQ(loadOrMeasureDeviceProfile(dir.path(), options)->flopsPerSecond, 1234.5) << "the stored figure";

    options.device = "auto"; // another device choice: measured again
    EXPECT_NE(loadOrMeasureDeviceProfile(dir.path(), options)->flopsPerSecond, 1234.5);
}

TEST(DeviceProfileTest, ADamagedProfileIsMeasuredAgainAndABudgetIsTheTrainingMemory)
{
    TempDir dir;
    std::ofstream(dir.path() / "device-profile.json") << "{\"fingerprint\": [tr";
    DeviceProfileOptions options;
    options.device = "cpu";
    options.deviceMemoryBudget = 123 << 20;
    const Result<DeviceReport> report = loadOrMeasureDeviceProfile(dir.path(), options);
    ASSERT_TRUE(report.ok()) << report.error().message;
    EXPECT_GT(report->flopsPerSecond, 0.0);
    EXPECT_EQ(report->trainingMemoryBytes, 123 << 20);
    EXPECT_NE(readText(dir.path() / "device-profile.json").find("capability"), std::string::npos) << "rewritten";
}

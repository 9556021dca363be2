// decodeActivations on hostile input (activations and their gradients from another pipeline
// stage): whatever it accepts is the expected count of finite values, and the exact encoding
// (float32, float16) or a same-size re-encoding (8-bit) of them.
#include "FuzzCheck.h"
#include "ActivationWire.h"

#include <cmath>
#include <cstdlib>
#include <vector>

using namespace swarmtrain;
using swarmtrain::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1)
        return 0;
    // The first byte picks what the receiver expects: a precision and a count up to 255 values.
    const auto precision = WirePrecision(data[0] % 3);
    const std::size_t expected = data[0] / 3 % 86 * 3;
    const auto *begin = reinterpret_cast<const std::byte *>(data + 1);
    const std::vector<std::byte> bytes(begin, begin + size - 1);
    Result<std::vector<float>> values = decodeActivations(bytes, expected, precision);
    if (!values) {
        check(!values.error().message.empty());
        return 0;
    }
    check(values->size() == expected);
    for (float v : *values)
        check(std::isfinite(v));
    Result<std::vector<std::byte>> again = encodeActivations(*values, precision);
    check(again.ok() && again->size() == bytes.size());
    if (precision != WirePrecision::Int8)
        check(*again == bytes);
    return 0;
}

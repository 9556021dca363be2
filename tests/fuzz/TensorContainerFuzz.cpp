// decodeTensorContainer on hostile input, with the checksum required (what a checkpoint read
// does) and not required (which lets the fuzzer past the SHA-256 into the layout checks).
// Whatever it accepts must describe bytes inside the container it returns.
#include "FuzzCheck.h"
#include "TensorContainer.h"

#include <cstdlib>
#include <vector>

using namespace swarmtrain;
using swarmtrain::fuzz::check;

namespace {

void decodeAndCheck(const std::uint8_t *data, std::size_t size, bool requireChecksum)
{
    const auto *begin = reinterpret_cast<const std::byte *>(data);
    DecodeLimits limits;
    limits.maxHeaderBytes = 1 << 20;
    limits.requireChecksum = requireChecksum;
    Result<TensorContainer> container = decodeTensorContainer(std::vector<std::byte>(begin, begin + size), limits);
    if (!container) {
        check(!container.error().message.empty());
        return;
    }
    const std::byte *storageBegin = container->storage.data();
    const std::byte *storageEnd = storageBegin + container->storage.size();
    check(container->storage.size() == size);
    for (const auto &[name, tensor] : container->tensors) {
        check(tensor.bytes.size() == std::size_t(tensor.numel()) * dtypeSize(tensor.dtype));
        if (!tensor.bytes.empty())
            check(tensor.bytes.data() >= storageBegin && tensor.bytes.data() + tensor.bytes.size() <= storageEnd);
        check(container->find(name) == &tensor);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    decodeAndCheck(data, size, /*requireChecksum=*/true);
    decodeAndCheck(data, size, /*requireChecksum=*/false);
    return 0;
}

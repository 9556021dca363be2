#pragma once

#include "ByteSource.h"

#include <memory>

namespace swarmtrain {

// gzip (one or more members, as `cat a.gz b.gz` makes) and zlib streams, through zlib.
std::unique_ptr<ByteSource> makeGzipSource(RawFile file);
// Zstandard frames, through libzstd; a frame may ask for at most a 128 MiB window.
std::unique_ptr<ByteSource> makeZstdSource(RawFile file);

} // namespace swarmtrain

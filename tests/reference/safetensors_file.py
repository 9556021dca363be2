"""A safetensors file read with the standard library and PyTorch only, independent of SwarmTrain:
an 8-byte little-endian header length, a JSON header naming each tensor's dtype, shape and byte
range, then the raw bytes."""
import json
import struct

import torch

DTYPES = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16, "I64": torch.int64, "I32": torch.int32}


def read_safetensors(path):
    """(metadata, {name: tensor}, {name: dtype name})."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    metadata = header.pop("__metadata__", {})
    tensors, dtypes = {}, {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        dtype = DTYPES[entry["dtype"]]
        flat = torch.frombuffer(bytearray(body[begin:end]), dtype=dtype) if end > begin else torch.empty(0, dtype=dtype)
        tensors[name] = flat.reshape(entry["shape"]).clone()
        dtypes[name] = entry["dtype"]
    return metadata, tensors, dtypes

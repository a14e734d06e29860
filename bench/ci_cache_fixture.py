#!/usr/bin/env python3
"""ci_cache_fixture.py ROOT [SCALE]: a mirror in NVIDIA's layout for bench/ci_cache.sh, whose
archives have the sizes of the real ones: CUDA 12.1.1's `torch` profile under ROOT/cuda/redist/
and cuDNN 9.10.0 for CUDA 12 under ROOT/cudnn/redist/, with their redistrib_<label>.json.

The sizes are those of NVIDIA's linux-x86_64 archives as NVIDIA's redistrib_12.1.1.json and cuDNN's
redistrib_9.10.0.json give them (marked `real`), or estimates of the same order for the ones whose
size was not at hand (`estimated`). Each archive holds one incompressible payload (seeded pseudo-random bytes) under
its top folder, as a .tar.xz whose LZMA2 data is written as uncompressed chunks ("The .xz File
Format" 1.1.0; what xz itself emits for incompressible input), so gigabytes are written in seconds
instead of minutes of xz. SCALE (default 1) multiplies every size, for a quick trial run."""
import hashlib
import io
import json
import os
import random
import struct
import sys
import tarfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xz_one_block import encode_varint, pad4  # noqa: E402

# component, version, archive bytes, where the size comes from
CUDA = [
    ("cuda_nvcc", "12.1.105", 44459684, "real"),
    ("cuda_cudart", "12.1.105", 984372, "real"),
    ("cuda_cccl", "12.1.109", 1024940, "real"),
    ("cuda_profiler_api", "12.1.105", 16044, "real"),
    ("cuda_nvtx", "12.1.105", 48392, "real"),
    ("libcublas", "12.1.3.1", 486381128, "real"),
    ("libcusparse", "12.1.0.106", 213000000, "real (213 MB)"),
    ("libcusolver", "11.4.5.107", 123000000, "real (123 MB)"),
    ("cuda_nvrtc", "12.1.105", 30000000, "estimated"),
    ("libcurand", "10.3.2.106", 50000000, "estimated"),
    ("cuda_cupti", "12.1.105", 20000000, "estimated"),
    ("libcufft", "11.0.2.54", 180000000, "estimated"),
    ("libnvjitlink", "12.1.105", 20000000, "estimated"),
]
CUDNN = ("cudnn", "9.10.0.56", 1003184568, "real")
CHUNK = 1 << 16  # the largest uncompressed LZMA2 chunk


class StoredXz:
    """A file object writing one .xz stream of one block (LZMA2, CRC32 check) to `out`, hashing
    what it writes."""

    def __init__(self, out):
        self.out, self.sha256, self.md5, self.size = out, hashlib.sha256(), hashlib.md5(), 0
        self.pending, self.crc, self.uncompressed, self.compressed, self.first = b"", 0, 0, 0, True
        flags = b"\0\x01"
        self._emit(b"\xfd7zXZ\0" + flags + struct.pack("<I", zlib.crc32(flags)))
        header = bytes([2, 0, 0x21, 1, 0, 0, 0, 0])  # one filter, LZMA2, 4 KiB dictionary
        self._emit(header + struct.pack("<I", zlib.crc32(header)))

    def _emit(self, data):
        self.out.write(data)
        self.sha256.update(data)
        self.md5.update(data)
        self.size += len(data)

    def _chunk(self, data):
        control = 1 if self.first else 2  # uncompressed, with (first) or without a dictionary reset
        self.first = False
        piece = bytes([control]) + struct.pack(">H", len(data) - 1)
        self._emit(piece)
        self._emit(data)
        self.compressed += len(piece) + len(data)

    def write(self, data):
        self.crc = zlib.crc32(data, self.crc)
        self.uncompressed += len(data)
        joined = self.pending + bytes(data)
        whole = len(joined) - len(joined) % CHUNK
        view = memoryview(joined)
        for start in range(0, whole, CHUNK):
            self._chunk(view[start:start + CHUNK])
        self.pending = joined[whole:]
        return len(data)

    def close(self):
        if self.pending:
            self._chunk(self.pending)
        self._emit(b"\0")  # end of the LZMA2 data
        self.compressed += 1
        self._emit(b"\0" * (-self.compressed % 4) + struct.pack("<I", self.crc))
        record = encode_varint(12 + self.compressed + 4) + encode_varint(self.uncompressed)
        index = pad4(b"\0" + encode_varint(1) + record)
        index += struct.pack("<I", zlib.crc32(index))
        tail = struct.pack("<I", len(index) // 4 - 1) + b"\0\x01"
        self._emit(index + struct.pack("<I", zlib.crc32(tail)) + tail + b"YZ")


class RandomBytes:
    def __init__(self, seed):
        self.random = random.Random(seed)

    def read(self, size):
        return self.random.randbytes(size)


def add_text(tar, name, text, mode=0o644):
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), mode, 1700000000
    tar.addfile(info, io.BytesIO(data))


def add_folder(tar, name):
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 1700000000
    tar.addfile(info)


def write_archive(path, top, size, files, library):
    """A .tar.xz of about `size` bytes: `files` (name -> (text, mode)), then `library`, the payload."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        xz = StoredXz(out)
        with tarfile.open(fileobj=xz, mode="w|", format=tarfile.GNU_FORMAT, copybufsize=1 << 20) as tar:
            for folder in ("", "/include", "/lib", "/bin"):
                add_folder(tar, top + folder)
            for name, (text, mode) in files.items():
                add_text(tar, f"{top}/{name}", text, mode)
            info = tarfile.TarInfo(f"{top}/lib/{library}")
            info.size, info.mode, info.mtime = max(size - 32768, 1024), 0o755, 1700000000
            tar.addfile(info, RandomBytes(top))
        xz.close()
    return xz


def artifact(relative, xz):
    return {"relative_path": relative, "sha256": xz.sha256.hexdigest(), "md5": xz.md5.hexdigest(), "size": str(xz.size)}


NVCC = """#!/bin/sh
echo 'nvcc: NVIDIA (R) Cuda compiler driver'
echo 'Cuda compilation tools, release 12.1, V12.1.105'
"""


def main():
    root, scale = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    manifest = {"release_date": "2023-04-19", "release_label": "12.1.1", "release_product": "cuda"}
    total = 0
    for component, version, size, origin in CUDA:
        top = f"{component}-linux-x86_64-{version}-archive"
        relative = f"{component}/linux-x86_64/{top}.tar.xz"
        files = {"LICENSE": ("CUDA Toolkit license\n", 0o644), f"include/{component}.h": ("#pragma once\n", 0o644)}
        if component == "cuda_nvcc":
            files["bin/nvcc"] = (NVCC, 0o755)
        xz = write_archive(f"{root}/cuda/redist/{relative}", top, int(size * scale), files, f"{component}.so.12")
        manifest[component] = {"name": component, "license": "CUDA Toolkit", "version": version,
                               "linux-x86_64": artifact(relative, xz)}
        total += xz.size
        print(f"{component:18} {xz.size:>11} bytes ({origin})", file=sys.stderr)
    json.dump(manifest, open(f"{root}/cuda/redist/redistrib_12.1.1.json", "w"), indent=4)

    component, version, size, origin = CUDNN
    top = f"cudnn-linux-x86_64-{version}_cuda12-archive"
    relative = f"cudnn/linux-x86_64/{top}.tar.xz"
    files = {"LICENSE": ("cuDNN license\n", 0o644),
             "include/cudnn_version.h": ("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 10\n#define CUDNN_PATCHLEVEL 0\n", 0o644)}
    xz = write_archive(f"{root}/cudnn/redist/{relative}", top, int(size * scale), files, "libcudnn.so.9")
    cudnn = {"release_date": "2025-05-01", "release_label": "9.10.0", "release_product": "cudnn",
             "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn", "version": version,
                       "cuda_variant": ["12"], "linux-x86_64": {"cuda12": artifact(relative, xz)}}}
    json.dump(cudnn, open(f"{root}/cudnn/redist/redistrib_9.10.0.json", "w"), indent=4)
    total += xz.size
    print(f"{component:18} {xz.size:>11} bytes ({origin})", file=sys.stderr)
    print(total)


if __name__ == "__main__":
    main()

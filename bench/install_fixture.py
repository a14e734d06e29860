#!/usr/bin/env python3
"""The archives bench/install.sh serves: real CUDA files packed as NVIDIA packs them.

    install_fixture.py redist OUT LABEL SET   NVIDIA's redist layout under OUT (redistrib_LABEL.json,
                                              <component>/linux-x86_64/<component>-...-archive.tar.xz)
    install_fixture.py pypi OUT LABEL SET     a PEP 691 index under OUT (simple/<project>/, files/):
                                              the cuda-toolkit LABEL metapackage and one wheel per
                                              component, nvidia/cu13/ inside as NVIDIA's wheels
    install_fixture.py real OUT WHEELS        a PEP 503 index (HTML pages, sha256 in the URL's
                                              fragment) under OUT of the real wheels in the folder
                                              WHEELS (NVIDIA's, from PyPI, and their cuda-toolkit
                                              metapackage), linked, not copied

SET is "cuda13" (~280 MB of .tar.xz: each file of ten components once, as `xz -6` packs them) or
"torch" (the torch profile sized like NVIDIA's 13.0.0 archives, ~2 GB: each component's real
files, then copies of them, until its archive is as large as NVIDIA's; `xz -1`, which packs the
2 GB several times faster than -6 on a shared 2-core machine). Files come from CUDA (default
/usr/local/cuda-13.0). A .tar.xz is one block with a CRC64, as xz -T1 writes it; a wheel is
deflated at zlib's level 6, as the wheel tool writes it. Components are packed two at a time.
"""
import glob
import hashlib
import io
import json
import lzma
import os
import sys
import tarfile
import zipfile
from multiprocessing import Pool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
import cuda_wheel_index  # noqa: E402  (the test index's page and metapackage writers)

CUDA = os.environ.get("CUDA", "/usr/local/cuda-13.0")
MB = 1000 * 1000
VERSION = "13.0.48"

# component: (sources below CUDA, MB the archive should reach by adding copies; 0: each file once)
SOURCES = {
    "cuda_nvcc": ["bin/*"],
    "libnvvm": ["nvvm/**", "lib64/libnvvm.so*"],
    "cuda_cudart": ["lib64/libcudart*", "lib64/libcudadevrt.a", "lib64/libculibos.a", "include/cuda_runtime*.h",
                    "include/cuda.h", "include/driver_types.h", "include/vector_types.h"],
    "cuda_cccl": ["include/cccl/**"],
    "cuda_crt": ["include/crt/**"],
    "cuda_nvtx": ["include/nvtx3/**"],
    "cuda_profiler_api": ["include/cuda_profiler_api.h", "include/cudaProfilerTypedefs.h"],
    "cuda_cupti": ["lib64/libcupti*", "lib64/libnvperf*", "lib64/libpcsamplingutil.so", "lib64/libcheckpoint.so",
                   "include/cupti*.h"],
    "libcusparse": ["lib64/libcusparse*", "include/cusparse*.h"],
    "libnvjitlink": ["lib64/libnvJitLink*", "include/nvJitLink.h"],
    "cuda_nvrtc": ["lib64/libnvrtc*", "include/nvrtc.h"],
    "libcurand": ["lib64/libcurand*", "include/curand*.h"],
    "libcublas": ["lib64/libcublas*", "include/cublas*.h", "lib64/libnvblas*"],
    "libcusolver": ["lib64/libcusolver*", "include/cusolver*.h"],
    "libcufft": ["lib64/libcufft*", "include/cufft*.h"],
}
PRESETS = {"cuda13": 6, "torch": 1}
SETS = {
    "cuda13": {name: 0 for name in ["cuda_nvcc", "libnvvm", "cuda_cudart", "cuda_cccl", "cuda_crt", "cuda_nvtx",
                                     "cuda_profiler_api", "cuda_cupti", "libcusparse", "cuda_nvrtc"]},
    # NVIDIA's 13.0.0 archive sizes (tests/fixtures/redist/cuda/redistrib_13.0.0.json), in MB.
    "torch": {"cuda_nvcc": 26, "libnvvm": 43, "cuda_cudart": 1, "cuda_cccl": 0, "cuda_crt": 0, "cuda_nvtx": 0,
              "cuda_profiler_api": 0, "cuda_cupti": 16, "libcusparse": 267, "libnvjitlink": 55, "cuda_nvrtc": 116,
              "libcurand": 86, "libcublas": 797, "libcusolver": 266, "libcufft": 354},
}


def source_files(component):
    """(path on disk, path in the toolkit), lib64/ as lib/ as the archives have it"""
    found = []
    for pattern in SOURCES[component]:
        for path in sorted(glob.glob(os.path.join(CUDA, pattern), recursive=True)):
            if os.path.isfile(path) and not os.path.islink(path):
                relative = os.path.relpath(path, CUDA)
                found.append((path, "lib/" + relative[len("lib64/"):] if relative.startswith("lib64/") else relative))
    if not found:
        sys.exit(f"install_fixture: no file of {component} under {CUDA}")
    return found


def members(component, target, written):
    """The files of `component`, then copies of them while written() is below target bytes."""
    files = source_files(component)
    yield from files
    copy = 1
    while written() < target:
        for path, name in files:
            if written() >= target:
                return
            yield path, f"{name}.copy{copy}"
        copy += 1


class Counted:
    """A write-only stream that compresses into `out`, counting the compressed bytes."""
    def __init__(self, out, compressor):
        self.out, self.compressor, self.count = out, compressor, 0

    def write(self, data):
        packed = self.compressor.compress(data)
        self.count += len(packed)
        self.out.write(packed)
        return len(data)

    def close(self):
        tail = self.compressor.flush()
        self.count += len(tail)
        self.out.write(tail)


def pack_redist(job):
    out, component, megabytes, preset = job
    top = f"{component}-linux-x86_64-{VERSION}-archive"
    relative = f"{component}/linux-x86_64/{top}.tar.xz"
    os.makedirs(os.path.dirname(os.path.join(out, relative)), exist_ok=True)
    with open(os.path.join(out, relative) + ".tmp", "wb") as raw:
        counted = Counted(raw, lzma.LZMACompressor(format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=preset))
        with tarfile.open(fileobj=counted, mode="w|", format=tarfile.GNU_FORMAT) as tar:
            for path, name in members(component, megabytes * MB, lambda: counted.count):
                tar.add(path, f"{top}/{name}")
            license_text = f"{component} license\n".encode()
            info = tarfile.TarInfo(f"{top}/LICENSE")
            info.size = len(license_text)
            tar.addfile(info, io.BytesIO(license_text))
        counted.close()
    os.rename(os.path.join(out, relative) + ".tmp", os.path.join(out, relative))
    return component, relative


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(out, label, packed):
    manifest = {"release_date": "2099-01-01", "release_label": label, "release_product": "cuda"}
    for component, relative in sorted(packed):
        path = os.path.join(out, relative)
        manifest[component] = {"name": component, "license": "CUDA Toolkit", "version": VERSION,
                               "linux-x86_64": {"relative_path": relative, "sha256": sha256_of(path), "md5": "0" * 32,
                                                "size": str(os.path.getsize(path))}}
    with open(os.path.join(out, f"redistrib_{label}.json"), "w") as f:
        json.dump(manifest, f, indent=4)


def distribution_of(component):
    """The wheel project NVIDIA ships the component as (src/install/pypi_index.cpp's table)."""
    return {"cuda_nvcc": "nvidia-cuda-nvcc", "libnvvm": "nvidia-nvvm", "cuda_cudart": "nvidia-cuda-runtime",
            "cuda_cccl": "nvidia-cuda-cccl", "cuda_crt": "nvidia-cuda-crt", "cuda_nvtx": "nvidia-nvtx",
            "cuda_profiler_api": "nvidia-cuda-profiler-api", "cuda_cupti": "nvidia-cuda-cupti",
            "libcusparse": "nvidia-cusparse", "libnvjitlink": "nvidia-nvjitlink", "cuda_nvrtc": "nvidia-cuda-nvrtc",
            "libcurand": "nvidia-curand", "libcublas": "nvidia-cublas", "libcusolver": "nvidia-cusolver",
            "libcufft": "nvidia-cufft"}[component]


def pack_wheel(job):
    out, component, megabytes, _ = job
    project = distribution_of(component)
    tag = "py3-none-" + cuda_wheel_index.PLATFORMS[0]
    path = os.path.join(out, "files", f"{project.replace('-', '_')}-{VERSION}-{tag}.whl")
    dist_info = f"{project.replace('-', '_')}-{VERSION}.dist-info"
    with open(path + ".tmp", "wb") as raw:
        with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as wheel:
            for source, name in members(component, megabytes * MB, raw.tell):
                wheel.write(source, f"nvidia/cu13/{name}")
            wheel.writestr(f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: {project}\nVersion: {VERSION}\n")
            wheel.writestr(f"{dist_info}/WHEEL", f"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: {tag}\n")
            wheel.writestr(f"{dist_info}/RECORD", "")
    os.rename(path + ".tmp", path)
    return project


def index_real(out, wheels):
    os.makedirs(os.path.join(out, "files"), exist_ok=True)
    names = [name for name in os.listdir(wheels) if name.endswith(".whl")]
    if not any(name.startswith("cuda_toolkit-") for name in names):
        sys.exit(f"install_fixture: no cuda_toolkit metapackage in {wheels}")
    for name in names:
        os.link(os.path.join(wheels, name), os.path.join(out, "files", name))
    projects = {cuda_wheel_index.project_of(name) for name in names}
    cuda_wheel_index.write_pages(out, projects, [], [], [])
    open(os.path.join(out, "complete"), "w").close()


def main():
    if sys.argv[1] == "real":
        return index_real(sys.argv[2], sys.argv[3])
    kind, out, label, which = sys.argv[1:5]
    components = SETS[which]
    os.makedirs(os.path.join(out, "files"), exist_ok=True)
    # Largest first, so the two processes end together.
    jobs = sorted(((out, name, size, PRESETS[which]) for name, size in components.items()), key=lambda job: -job[2])
    with Pool(2) as pool:
        if kind == "redist":
            write_manifest(out, label, pool.map(pack_redist, jobs, chunksize=1))
        elif kind == "pypi":
            projects = pool.map(pack_wheel, jobs, chunksize=1)
            meta = os.path.join(out, "files", f"cuda_toolkit-{label}-py2.py3-none-any.whl")
            with zipfile.ZipFile(meta, "w") as wheel:
                dist_info = f"cuda_toolkit-{label}.dist-info"
                wheel.writestr(f"{dist_info}/METADATA", cuda_wheel_index.metapackage_metadata(label, VERSION, projects))
                wheel.writestr(f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-any\n")
            cuda_wheel_index.write_pages(out, [], [], [], [])
        else:
            sys.exit(f"install_fixture: unknown kind {kind}")
    open(os.path.join(out, "complete"), "w").close()


if __name__ == "__main__":
    main()

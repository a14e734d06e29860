#!/usr/bin/env python3
"""A stand-in for NVIDIA's CUDA 13 wheels on PyPI, built from small real wheels (no network).

    cuda_wheel_index.py ROOT release LABEL COMPONENT_VERSION [--skip DIST]...
        adds the cuda-toolkit LABEL metapackage (pinning every distribution ==COMPONENT_VERSION.*,
        nvjitlink as a range, as NVIDIA's do) and each distribution's x86_64 and aarch64 wheels,
        holding fake files under nvidia/cu13/ as the real ones; --skip leaves one out.
    cuda_wheel_index.py ROOT nccl VERSION CUDA_MAJOR [LIBRARY]
        adds nvidia-nccl-cuCUDA_MAJOR VERSION's x86_64 and aarch64 wheels as NVIDIA's are laid out
        (nvidia/nccl/{include/nccl.h,lib/libnccl.so.2} and an __init__.py); LIBRARY, a file, is
        the libnccl.so.2 it carries (default: a few bytes of text).
    cuda_wheel_index.py ROOT hostile DIST VERSION MEMBER
        replaces DIST's x86_64 wheel of VERSION with one that also holds MEMBER (a hostile path).
    cuda_wheel_index.py ROOT pages [--html DIST]... [--no-hash DIST]... [--wrong-hash DIST]... [--file-url DIST]...
        (re)writes ROOT/simple/<project>/index.html for every wheel in ROOT/files: PEP 691 JSON,
        or PEP 503 HTML (hash in the #sha256= fragment) for --html projects; --file-url projects
        link their wheels as file:// URLs (a remote page leading to local files).
"""
import base64
import hashlib
import html
import json
import os
import sys
import zipfile

# distribution -> {member below nvidia/cu13/: contents}; "{label}" etc. are filled in.
NVCC = """#!/bin/sh
cat <<'BANNER'
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2026 NVIDIA Corporation
Cuda compilation tools, release {major_minor}, V{component}
Build cuda_{major_minor}.r{major_minor}/compiler.00000000_0
BANNER
"""
FILES = {
    "nvidia-cuda-nvcc": {"bin/nvcc": NVCC, "bin/ptxas": "#!/bin/sh\necho ptxas {component}\n",
                         "include/fatbinary_section.h": "#pragma once\n"},
    "nvidia-cuda-crt": {"include/crt/host_config.h": "#pragma once\n"},
    "nvidia-nvvm": {"nvvm/bin/cicc": "#!/bin/sh\necho cicc {component}\n", "lib/libnvvm.so.4": "ELF-ish nvvm\n",
                    "nvvm/libdevice/libdevice.10.bc": "bc\n"},
    "nvidia-cuda-runtime": {"include/cuda.h": "#define CUDA_VERSION {cuda_version}\n",
                            "include/cuda_runtime.h": "#pragma once\n", "lib/libcudart.so.13": "ELF-ish cudart\n",
                            "lib/libcudart_static.a": "!<arch>\n"},
    "nvidia-cuda-cccl": {"include/cccl/cuda/std/version": "#pragma once\n", "include/nv/target": "#pragma once\n",
                         "cuda_cccl/lib/cmake/cccl/cccl-config.cmake": "# cccl\n",
                         "cuda_cccl/.metadata/provenance.txt": "built somewhere\n"},
    "nvidia-cublas": {"include/cublas_v2.h": "#pragma once\n", "lib/libcublas.so.13": "ELF-ish cublas\n"},
    "nvidia-cusparse": {"include/cusparse.h": "#pragma once\n", "lib/libcusparse.so.12": "ELF-ish\n"},
    "nvidia-cusolver": {"include/cusolverDn.h": "#pragma once\n", "lib/libcusolver.so.12": "ELF-ish\n"},
    "nvidia-cuda-nvrtc": {"include/nvrtc.h": "#pragma once\n", "lib/libnvrtc.so.13": "ELF-ish\n"},
    "nvidia-curand": {"include/curand.h": "#pragma once\n", "lib/libcurand.so.10": "ELF-ish\n"},
    "nvidia-nvtx": {"include/nvtx3/nvToolsExt.h": "#pragma once\n"},
    "nvidia-cuda-profiler-api": {"include/cuda_profiler_api.h": "#pragma once\n"},
    "nvidia-cuda-cupti": {"include/cupti.h": "#pragma once\n", "lib/libcupti.so.13": "ELF-ish\n"},
    "nvidia-cufft": {"include/cufft.h": "#pragma once\n", "lib/libcufft.so.12": "ELF-ish\n"},
    "nvidia-nvjitlink": {"include/nvJitLink.h": "#pragma once\n", "lib/libnvJitLink.so.13": "ELF-ish\n"},
    "nvidia-cuda-cuobjdump": {"bin/cuobjdump": "#!/bin/sh\necho cuobjdump {component}\n"},
}
PLATFORMS = ["manylinux2014_x86_64.manylinux_2_17_x86_64", "manylinux2014_aarch64.manylinux_2_17_aarch64"]


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(path, project, version, members, tag):
    """members: {path in the wheel: (bytes, executable)}"""
    dist_info = f"{project.replace('-', '_')}-{version}.dist-info"
    files = dict(members)
    files[f"{dist_info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n".encode(), False)
    files[f"{dist_info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: cudaenv-tests\nRoot-Is-Purelib: false\nTag: {tag}\n".encode(), False)
    record = [record_line(name, data) for name, (data, _) in files.items()] + [f"{dist_info}/RECORD,,"]
    files[f"{dist_info}/RECORD"] = (("\n".join(record) + "\n").encode(), False)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, (data, executable) in files.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 5, 8, 18, 23, 0))
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)


def metapackage_metadata(label, component, projects):
    lines = [f"Metadata-Version: 2.1", "Name: cuda-toolkit", f"Version: {label}"]
    for project in projects:
        spec = f"<14,>={component}" if project == "nvidia-nvjitlink" else f"=={component}.*"
        marker = "(sys_platform == 'linux' and platform_machine == 'x86_64') and extra == 'all'"
        lines.append(f"Requires-Dist: {project}{spec}; {marker}")
    return "\n".join(lines) + "\n\nThe CUDA toolkit metapackage (test stand-in).\n"


def add_release(root, label, component, skip):
    os.makedirs(f"{root}/files", exist_ok=True)
    major_minor = ".".join(label.split(".")[:2])
    major, minor = (int(part) for part in label.split(".")[:2])
    values = {"component": component, "major_minor": major_minor, "cuda_version": major * 1000 + minor * 10}
    for project, members in FILES.items():
        if project in skip:
            continue
        contents = {"nvidia/__init__.py": (b"", False), "nvidia/cu13/__init__.py": (b"", False)}
        for name, text in members.items():
            contents[f"nvidia/cu13/{name}"] = (text.format(**values).encode(), "/bin/" in f"/{name}")
        for tag in PLATFORMS:
            write_wheel(f"{root}/files/{project.replace('-', '_')}-{component}-py3-none-{tag}.whl", project, component,
                        contents, f"py3-none-{tag}")
    meta = f"{root}/files/cuda_toolkit-{label}-py2.py3-none-any.whl"
    dist_info = f"cuda_toolkit-{label}.dist-info"
    with zipfile.ZipFile(meta, "w") as wheel:
        wheel.writestr(f"{dist_info}/METADATA", metapackage_metadata(label, component, FILES))
        wheel.writestr(f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nTag: py2-none-any\nTag: py3-none-any\n")


def add_nccl(root, version, major, library=None):
    os.makedirs(f"{root}/files", exist_ok=True)
    nccl_major, nccl_minor, nccl_patch = version.split(".")[:3]
    header = (f"#define NCCL_MAJOR {nccl_major}\n#define NCCL_MINOR {nccl_minor}\n#define NCCL_PATCH {nccl_patch}\n"
              "int ncclGetVersion(int *version);\n")
    contents = {"nvidia/__init__.py": (b"", False), "nvidia/nccl/__init__.py": (b"", False),
                "nvidia/nccl/include/__init__.py": (b"", False), "nvidia/nccl/include/nccl.h": (header.encode(), False),
                "nvidia/nccl/lib/__init__.py": (b"", False),
                "nvidia/nccl/lib/libnccl.so.2": (open(library, "rb").read() if library else b"ELF-ish nccl\n", True)}
    project = f"nvidia-nccl-cu{major}"
    for tag in PLATFORMS:
        write_wheel(f"{root}/files/{project.replace('-', '_')}-{version}-py3-none-{tag}.whl", project, version, contents,
                    f"py3-none-{tag}")


def add_hostile(root, project, version, member):
    path = f"{root}/files/{project.replace('-', '_')}-{version}-py3-none-{PLATFORMS[0]}.whl"
    with zipfile.ZipFile(path, "a") as wheel:
        info = zipfile.ZipInfo(member)
        info.external_attr = 0o100644 << 16
        wheel.writestr(info, b"escaped\n")


def project_of(filename):
    return filename.split("-")[0].replace("_", "-").lower()


def write_pages(root, html_projects, no_hash, wrong_hash, file_url):
    projects = {}
    for name in sorted(os.listdir(f"{root}/files")):
        if name.endswith(".whl"):
            projects.setdefault(project_of(name), []).append(name)
    for project, names in projects.items():
        folder = f"{root}/simple/{project}"
        os.makedirs(folder, exist_ok=True)
        entries = []
        for name in names:
            data = open(f"{root}/files/{name}", "rb").read()
            digest = hashlib.sha256(data).hexdigest()
            if project in wrong_hash:
                digest = hashlib.sha256(data + b"x").hexdigest()
            url = f"file://{os.path.abspath(root)}/files/{name}" if project in file_url else f"../../files/{name}"
            entries.append((name, url, None if project in no_hash else digest, len(data)))
        if project in html_projects:
            links = "".join(f'<a href="{html.escape(url)}{"#sha256=" + digest if digest else ""}">{html.escape(name)}</a><br/>\n'
                            for name, url, digest, _ in entries)
            page = f"<!DOCTYPE html>\n<html><body><h1>Links for {project}</h1>\n{links}</body></html>\n"
        else:
            files = [{"filename": name, "url": url, "hashes": {"sha256": digest} if digest else {}, "size": size,
                      "requires-python": None, "yanked": False} for name, url, digest, size in entries]
            page = json.dumps({"meta": {"api-version": "1.1"}, "name": project, "files": files}, indent=1)
        open(f"{folder}/index.html", "w").write(page)


def flags(args, name):
    return [args[i + 1] for i, arg in enumerate(args) if arg == name]


def main(argv):
    root, command, args = argv[1], argv[2], argv[3:]
    if command == "release":
        add_release(root, args[0], args[1], flags(args, "--skip"))
    elif command == "nccl":
        add_nccl(root, *args[:3])
    elif command == "hostile":
        add_hostile(root, *args[:3])
    elif command == "pages":
        write_pages(root, flags(args, "--html"), flags(args, "--no-hash"), flags(args, "--wrong-hash"),
                    flags(args, "--file-url"))
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)

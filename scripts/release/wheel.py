#!/usr/bin/env python3
"""wheel.py STAGE VERSION PLATFORM README OUTDIR: packs an installed cudaenv tree as a wheel.

STAGE is what `cmake --install` put under a prefix (bin/, libexec/, share/). pip, uv and pipx
install a wheel's NAME.data/scripts into the environment's bin/ and NAME.data/data into its
prefix, so the programs find each other and their data as in the tarball: PREFIX/bin/cudaenv,
PREFIX/libexec/cudaenv/*, PREFIX/share/cudaenv (src/core/data_dir.h). No Python module: the
wheel carries programs only. Written with the standard library, reproducibly (fixed times).
"""
import base64
import hashlib
import os
import sys
import zipfile

NAME = "cudaenv"
SUMMARY = "Side-by-side CUDA toolkits per project, like pyenv: install, select, doctor, torch"


def metadata(version, readme):
    # Metadata 2.1: what Debian 12's twine (4.0) checks.
    fields = [
        ("Metadata-Version", "2.1"),
        ("Name", NAME),
        ("Version", version),
        ("Summary", SUMMARY),
        ("License", "MIT"),
        ("Keywords", "cuda,nvcc,toolkit,version-manager,pytorch"),
        ("Classifier", "Development Status :: 4 - Beta"),
        ("Classifier", "Environment :: Console"),
        ("Classifier", "License :: OSI Approved :: MIT License"),
        ("Classifier", "Operating System :: POSIX :: Linux"),
        ("Classifier", "Programming Language :: C++"),
        ("Classifier", "Topic :: Software Development :: Build Tools"),
        ("Requires-Python", ">=3.7"),
        ("Description-Content-Type", "text/markdown"),
    ]
    head = "".join(f"{key}: {value}\n" for key, value in fields)
    return head + "\n" + readme


def entry(path, mode):
    info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def main():
    stage, version, platform, readme_path, outdir = sys.argv[1:6]
    tag = f"py3-none-{platform}"
    data = f"{NAME}-{version}.data"
    info = f"{NAME}-{version}.dist-info"
    members = []  # (path in the wheel, bytes, mode)
    for root, dirs, files in os.walk(stage):
        dirs.sort()
        for name in sorted(files):
            source = os.path.join(root, name)
            relative = os.path.relpath(source, stage)
            if os.path.islink(source):
                sys.exit(f"wheel.py: {source} is a symlink, which a wheel cannot hold")
            mode = 0o755 if os.access(source, os.X_OK) else 0o644
            with open(source, "rb") as f:
                content = f.read()
            top, _, rest = relative.partition(os.sep)
            path = f"{data}/scripts/{rest}" if top == "bin" else f"{data}/data/{relative}"
            members.append((path.replace(os.sep, "/"), content, mode))
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    members.append((f"{info}/METADATA", metadata(version, readme).encode(), 0o644))
    wheel = f"Wheel-Version: 1.0\nGenerator: cudaenv scripts/release/wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    members.append((f"{info}/WHEEL", wheel.encode(), 0o644))
    with open(os.path.join(stage, "share", "doc", NAME, "LICENSE"), "rb") as f:
        members.append((f"{info}/LICENSE", f.read(), 0o644))
    record = []
    for path, content, _ in members:
        digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(content)}\n")
    record.append(f"{info}/RECORD,,\n")
    members.append((f"{info}/RECORD", "".join(record).encode(), 0o644))
    out = os.path.join(outdir, f"{NAME}-{version}-{tag}.whl")
    with zipfile.ZipFile(out, "w", compresslevel=9) as archive:
        for path, content, mode in members:
            archive.writestr(entry(path, mode), content)
    print(out)


if __name__ == "__main__":
    main()

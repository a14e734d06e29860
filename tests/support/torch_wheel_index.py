#!/usr/bin/env python3
"""A stand-in for download.pytorch.org/whl built from small real wheels (no network, no setuptools).

    torch_wheel_index.py ROOT VARIANT PACKAGE VERSION [CUDA_OR_TORCH] [--no-metadata]

adds PACKAGE-VERSION+VARIANT-py3-none-any.whl under ROOT/VARIANT/ and rewrites the PEP 503
pages that list it: ROOT/VARIANT/PACKAGE/ (what pip reads with --index-url ROOT/VARIANT) and
ROOT/PACKAGE/ (every variant, as the real index's whl/torch/ page). For torch the fifth
argument is the CUDA that torch.version.cuda reports ("12.1", or "none" for a CPU build); for
torchvision and torchaudio it is the torch release the wheel requires (Requires-Dist:
torch==X). Each wheel's METADATA is also served beside it as PEP 658 `.metadata`, announced by
data-dist-info-metadata / data-core-metadata, unless --no-metadata.
"""
import base64
import hashlib
import html
import os
import sys
import urllib.parse
import zipfile


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def package_files(package, version, extra):
    if package == "torch":
        cuda = "None" if extra == "none" else repr(extra)
        # What the cu11x/cu12x wheels report; doctor compares it with the GPU.
        archs = [] if extra == "none" else ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
        return {
            "torch/__init__.py": f'__version__ = "{version}"\nfrom . import version, cuda\n',
            "torch/version.py": f'__version__ = "{version}"\ncuda = {cuda}\n',
            "torch/cuda/__init__.py": "def is_available():\n    return False\n\n"
            f"def get_arch_list():\n    return {archs!r}\n",
        }
    return {f"{package}/__init__.py": f'__version__ = "{version}"\n'}


def metadata_text(package, version, extra):
    text = f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"
    if package != "torch" and extra:
        text += f"Requires-Dist: torch=={extra}\n"
    return text


def write_wheel(path, package, version, extra):
    dist_info = f"{package}-{version}.dist-info"
    files = {name: text.encode() for name, text in package_files(package, version, extra).items()}
    metadata = metadata_text(package, version, extra).encode()
    files[f"{dist_info}/METADATA"] = metadata
    files[f"{dist_info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: cudaenv-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [record_line(name, data) for name, data in files.items()] + [f"{dist_info}/RECORD,,"]
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
    return metadata


def write_listing(folder, links):
    """links: (href, text, attributes) for each file."""
    os.makedirs(folder, exist_ok=True)
    rows = []
    for href, text, attributes in sorted(links, key=lambda link: link[1]):
        extra = "".join(f' {key}="{html.escape(value)}"' for key, value in attributes.items())
        rows.append(f'    <a href="{html.escape(href)}"{extra}>{html.escape(text)}</a><br/>')
    body = "\n".join(rows)
    with open(os.path.join(folder, "index.html"), "w") as page:
        page.write(f"<!DOCTYPE html>\n<html>\n  <body>\n{body}\n  </body>\n</html>\n")


def wheels_in(folder, package):
    if not os.path.isdir(folder):
        return []
    return [name for name in os.listdir(folder) if name.startswith(package + "-") and name.endswith(".whl")]


def link_for(variant_dir, name, prefix):
    with open(os.path.join(variant_dir, name), "rb") as wheel:
        digest = hashlib.sha256(wheel.read()).hexdigest()
    attributes = {}
    metadata = os.path.join(variant_dir, name + ".metadata")
    if os.path.exists(metadata):
        with open(metadata, "rb") as file:
            meta_digest = "sha256=" + hashlib.sha256(file.read()).hexdigest()
        attributes = {"data-dist-info-metadata": meta_digest, "data-core-metadata": meta_digest}
    return (prefix + urllib.parse.quote(name) + "#sha256=" + digest, name, attributes)


def rewrite_pages(root, package):
    variants = sorted(entry for entry in os.listdir(root) if os.path.isdir(os.path.join(root, entry, package)))
    every = []
    for variant in variants:
        variant_dir = os.path.join(root, variant)
        names = wheels_in(variant_dir, package)
        write_listing(os.path.join(variant_dir, package), [link_for(variant_dir, n, "../") for n in names])
        every += [link_for(variant_dir, n, f"../{variant}/") for n in names]
        projects = sorted(e for e in os.listdir(variant_dir) if os.path.isdir(os.path.join(variant_dir, e)))
        write_listing(variant_dir, [(p + "/", p, {}) for p in projects])
    write_listing(os.path.join(root, package), every)


def main(argv):
    with_metadata = "--no-metadata" not in argv
    args = [a for a in argv if a != "--no-metadata"]
    if len(args) not in (4, 5):
        sys.exit(__doc__)
    root, variant, package, version = args[:4]
    extra = args[4] if len(args) == 5 else ""
    variant_dir = os.path.join(root, variant)
    os.makedirs(os.path.join(variant_dir, package), exist_ok=True)
    name = f"{package}-{version}+{variant}-py3-none-any.whl"
    metadata = write_wheel(os.path.join(variant_dir, name), package, f"{version}+{variant}", extra)
    if with_metadata:
        with open(os.path.join(variant_dir, name + ".metadata"), "wb") as file:
            file.write(metadata)
    rewrite_pages(root, package)


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env bash
# `cudaenv torch` through the CLI: the active (fake) toolkit picks the build, stdout is only
# the answer ($(cudaenv torch) runs), and every format parses with Python's own tools.
. "$(dirname "$0")/lib.sh"

make_fake_toolkit "$WORK/cuda-12.4" 12.4.1
make_fake_toolkit "$WORK/cuda-12.7" 12.7.0
make_fake_toolkit "$WORK/cuda-11.8" 11.8.0
for dir in cuda-12.4 cuda-12.7 cuda-11.8; do check "register $dir" "$CUDAENV" add "$WORK/$dir" >/dev/null 2>&1; done

mkdir -p "$WORK/proj" && cd "$WORK/proj" || exit 1
printf '[cuda]\nversion = "12.4"\n' >cuda.toml

# The project's toolkit decides: 12.4 -> the newest torch with a cu124 build.
run_capture "$CUDAENV" torch --driver 550.54.14
assert_eq 0 "$STATUS" "torch for 12.4 succeeds"
assert_eq "pip install torch==2.6.0+cu124 torchvision==0.21.0+cu124 torchaudio==2.6.0+cu124 --index-url https://download.pytorch.org/whl/cu124" "$OUT" "pip command for 12.4"
assert_contains "$ERR" "cu124 build (exact match for CUDA 12.4.1: toolkit 12.4.1, set by $WORK/proj/cuda.toml)" "explanation on stderr"
assert_contains "$ERR" "torch 2.15.0 is newer but has no CUDA 12 build" "newer release mentioned"

# cuda.toml [torch] version is the default torch; --torch overrides it.
printf '[cuda]\nversion = "12.4"\n\n[torch]\nversion = "2.5.1"\n' >cuda.toml
run_capture "$CUDAENV" torch --driver 550.54.14 --installer uv
assert_eq "uv pip install torch==2.5.1+cu124 torchvision==0.20.1+cu124 torchaudio==2.5.1+cu124 --index-url https://download.pytorch.org/whl/cu124" "$OUT" "uv command from cuda.toml [torch]"
assert_contains "$ERR" "torch 2.5.1 ([torch] version in $WORK/proj/cuda.toml)" "torch origin named"
run_capture "$CUDAENV" torch --driver 550.54.14 --torch 2.4 --packages torch,torchvision
assert_eq "pip install torch==2.4.1+cu124 torchvision==0.19.1+cu124 --index-url https://download.pytorch.org/whl/cu124" "$OUT" "--torch prefix and --packages"

# $(cudaenv torch) runs: only the command reaches stdout.
mkdir -p "$WORK/fakebin"
printf '#!/bin/sh\necho "$@" >"%s/pip-args"\n' "$WORK" >"$WORK/fakebin/pip"
chmod +x "$WORK/fakebin/pip"
PATH="$WORK/fakebin:$PATH" $("$CUDAENV" torch --driver 550.54.14 2>/dev/null)
assert_eq "install torch==2.5.1+cu124 torchvision==0.20.1+cu124 torchaudio==2.5.1+cu124 --index-url https://download.pytorch.org/whl/cu124" \
  "$(cat "$WORK/pip-args" 2>/dev/null)" "\$(cudaenv torch) runs pip with the pins"

# A toolkit with no exact build: nearest minor of the same major, with a warning.
run_capture env CUDAENV_VERSION=12.7.0 "$CUDAENV" torch --driver 550.54.14 --torch 2.9.1
assert_eq 0 "$STATUS" "nearest minor succeeds"
assert_eq "pip install torch==2.9.1+cu128 torchvision==0.24.1+cu128 torchaudio==2.9.1+cu128 --index-url https://download.pytorch.org/whl/cu128" "$OUT" "12.7 -> cu128"
assert_contains "$ERR" "warning: torch 2.9.1 has no build for CUDA 12.7; using cu128" "nearest-minor warning"
assert_contains "$ERR" "DeepSpeed raises CUDAMismatchException" "DeepSpeed verdict"

# Never another major.
run_capture env CUDAENV_VERSION=11.8.0 "$CUDAENV" torch --driver 550.54.14
assert_eq "pip install torch==2.5.1+cu118 torchvision==0.20.1+cu118 torchaudio==2.5.1+cu118 --index-url https://download.pytorch.org/whl/cu118" "$OUT" "CUDAENV_VERSION 11.8 with cuda.toml's torch 2.5.1"
run_capture env CUDAENV_VERSION=11.8.0 "$CUDAENV" torch --torch 2.14.0
assert_eq 1 "$STATUS" "no CUDA 11 build of 2.14.0 fails"
assert_eq "" "$OUT" "nothing on stdout on error"
assert_contains "$ERR" "error: torch 2.14.0 has no build for CUDA 11.8" "major mismatch error"
assert_contains "$ERR" "cudaenv install 12.6" "the toolkit to install instead"

# The driver floor.
run_capture "$CUDAENV" torch --driver 470.82.01
assert_eq 1 "$STATUS" "old driver fails"
assert_contains "$ERR" "NVIDIA driver 470.82.01 (--driver) is too old for torch 2.5.1+cu124" "driver error"
assert_contains "$ERR" "525.60.13" "driver error names the needed driver"

# Bad input.
run_capture "$CUDAENV" torch --torch 2.4.3
assert_eq 1 "$STATUS" "unknown torch fails"
assert_contains "$ERR" "nearest known: 2.4.1, 2.5.0" "nearest known releases"
run_capture "$CUDAENV" torch --torch 2.x
assert_eq 2 "$STATUS" "malformed torch is a usage error"
run_capture "$CUDAENV" torch --cuda twelve
assert_eq 2 "$STATUS" "malformed --cuda is a usage error"
run_capture "$CUDAENV" torch --cuda 12
assert_eq 2 "$STATUS" "--cuda without a minor is a usage error"
run_capture "$CUDAENV" torch --driver abc
assert_eq 2 "$STATUS" "malformed --driver is a usage error"
run_capture "$CUDAENV" torch --packages torch,torchvison
assert_eq 2 "$STATUS" "unknown package is a usage error"
assert_contains "$ERR" "did you mean torchvision?" "package typo suggestion"

# No usable toolkit: the fix names --cuda and --cpu.
printf '[cuda]\nversion = "12.9"\n' >cuda.toml
run_capture "$CUDAENV" torch
assert_eq 1 "$STATUS" "missing toolkit fails"
assert_contains "$ERR" "no CUDA toolkit to match torch to: CUDA 12.9 is not installed" "missing toolkit error"
assert_contains "$ERR" "cudaenv torch --cuda 12.4" "fix: --cuda"
run_capture "$CUDAENV" torch --cuda 12.8 --torch 2.8.0 --driver 570.86.10
assert_eq "pip install torch==2.8.0+cu128 torchvision==0.23.0+cu128 torchaudio==2.8.0+cu128 --index-url https://download.pytorch.org/whl/cu128" "$OUT" "--cuda needs no toolkit"
run_capture "$CUDAENV" torch --cpu --torch 2.3.1
assert_eq "pip install torch==2.3.1+cpu torchvision==0.18.1+cpu torchaudio==2.3.1+cpu --index-url https://download.pytorch.org/whl/cpu" "$OUT" "--cpu"
if [ ! -e /usr/local/cuda ]; then
  rm cuda.toml
  run_capture env PATH=/usr/bin:/bin "$CUDAENV" torch
  assert_eq 1 "$STATUS" "no toolkit anywhere fails"
  assert_contains "$ERR" "cudaenv torch --cpu" "no toolkit: fix"
else
  echo "note: /usr/local/cuda exists here, so the no-toolkit-at-all case falls back to it; not checked"
fi

# A broken shipped matrix names the file and line.
mkdir -p "$WORK/manifests"
printf 'index_url = "https://x"\n[[release]]\ntorch = "2.5"\n' >"$WORK/manifests/pytorch.toml"
run_capture env CUDAENV_MANIFESTS_DIR="$WORK/manifests" "$CUDAENV" torch --cpu
assert_eq 1 "$STATUS" "broken matrix fails"
assert_contains "$ERR" "$WORK/manifests/pytorch.toml:3:9:" "matrix error names file:line:column"

# Each format parses with Python's own parsers.
if ! command -v python3 >/dev/null; then
  echo "note: no python3; format parsing not checked"
  finish
fi
"$CUDAENV" torch --cuda 12.6 --torch 2.7.1 --driver 560.35.03 --format pyproject 2>/dev/null >"$WORK/pyproject.toml"
check "pyproject output loads with tomllib and routes torch to the explicit index" python3 -c '
import sys, tomllib
doc = tomllib.load(open(sys.argv[1], "rb"))
index = doc["tool"]["uv"]["index"][0]
assert index == {"name": "pytorch-cu126", "url": "https://download.pytorch.org/whl/cu126", "explicit": True}, index
for name in ("torch", "torchvision", "torchaudio"):
    assert doc["tool"]["uv"]["sources"][name][0]["index"] == "pytorch-cu126", name
linux, mac = "; sys_platform == \x27linux\x27 or sys_platform == \x27win32\x27", "; sys_platform == \x27darwin\x27"
assert doc["project"]["dependencies"] == [
    "torch==2.7.1+cu126" + linux, "torch==2.7.1" + mac, "torchvision==0.22.1+cu126" + linux, "torchvision==0.22.1" + mac,
    "torchaudio==2.7.1+cu126" + linux, "torchaudio==2.7.1" + mac], doc["project"]
' "$WORK/pyproject.toml"

"$CUDAENV" torch --cuda 12.6 --torch 2.7.1 --driver 560.35.03 --json 2>/dev/null >"$WORK/torch.json"
check "JSON output loads and carries the choice" python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["variant"] == "cu126" and doc["match"] == "exact" and doc["driver"] == "560.35.03", doc
assert doc["min_driver"] == "525.60.13" and doc["torchaudio"] == "2.7.1" and doc["pypi_default"] == "cu126", doc
' "$WORK/torch.json"

"$CUDAENV" torch --cuda 12.6 --torch 2.7.1 --driver 560.35.03 --format requirements 2>/dev/null >"$WORK/requirements.txt"
if python3 -c 'import pip._internal.req.req_file' 2>/dev/null; then
  check "requirements output parses with pip's own requirements-file parser" python3 -c '
import sys
from pip._internal.network.session import PipSession
from pip._internal.req.req_file import parse_requirements
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
pins = [str(Requirement(r.requirement)) for r in parse_requirements(sys.argv[1], session=PipSession())]
assert pins == ["torch==2.7.1+cu126", "torchvision==0.22.1+cu126", "torchaudio==2.7.1+cu126"], pins
assert open(sys.argv[1]).readline() == "--index-url https://download.pytorch.org/whl/cu126\n"
' "$WORK/requirements.txt"
else
  echo "note: pip is not importable by python3; requirements syntax checked only by the unit test"
fi
finish

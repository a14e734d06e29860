# cudaenv install --source pypi against a loopback package index of small CUDA 13 wheels built
# here (tests/support/cuda_wheel_index.py): PEP 691 JSON and PEP 503 HTML pages, the
# cuda-toolkit metapackage's pins, the nvidia/cu13/ layout, hashes, hostile wheels, CUDA 12.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

wheels release 13.2.1 13.2.75
wheels release 13.2.2 13.2.86 --skip nvidia-cuda-crt  # 13.2's newest lacks a wheel: 13.2 is 13.2.1
wheels release 13.0.2 13.0.88
wheels pages --html nvidia-cuda-runtime --html cuda-toolkit
start_mirror
INDEX="${MIRROR_URL}simple"

pypi_install() { run_capture "$CUDAENV" install --source pypi --index-url "$INDEX" --platform linux-x86_64 "$@"; }

pypi_install 13.2
assert_eq 0 "$STATUS" "install 13.2 from the index: $ERR"
HOME132="$CUDAENV_ROOT/versions/13.2.1"
check "13.2 is the newest 13.2.z whose wheels all exist" test -d "$HOME132"
check "13.2.2, which lacks nvidia-cuda-crt, is not installed" test ! -e "$CUDAENV_ROOT/versions/13.2.2"
check "nvcc mapped from nvidia/cu13/bin" test -x "$HOME132/bin/nvcc"
check "crt headers" test -f "$HOME132/include/crt/host_config.h"
check "cicc under nvvm/bin" test -x "$HOME132/nvvm/bin/cicc"
check "cccl headers" test -f "$HOME132/include/cccl/cuda/std/version"
check "the cccl wheel's nested cuda_cccl/lib/cmake goes to lib/cmake" test -f "$HOME132/lib/cmake/cccl/cccl-config.cmake"
check "no hidden wheel metadata" test ! -e "$HOME132/cuda_cccl"
check "no .dist-info" test -z "$(find "$HOME132" -name '*.dist-info')"
check "no python files" test -z "$(find "$HOME132" -name '*.py')"
check "no nvidia/ folder" test ! -e "$HOME132/nvidia"
assert_eq "lib" "$(readlink "$HOME132/lib64")" "lib64 -> lib, as a redist install"
assert_eq "libcudart.so.13" "$(readlink "$HOME132/lib/libcudart.so")" "the link -lcudart needs"
assert_eq "libnvvm.so.4" "$(readlink "$HOME132/lib/libnvvm.so")" "libnvvm's link"
check "minimal profile: no cublas" test ! -e "$HOME132/include/cublas_v2.h"
assert_contains "$("$HOME132/bin/nvcc" --version)" "release 13.2, V13.2.75" "the wheel's nvcc"
RECEIPT=$(cat "$HOME132/cudaenv-install.json")
assert_contains "$RECEIPT" '"source": "pypi"' "receipt: the source"
assert_contains "$RECEIPT" "\"origin\": \"$INDEX\"" "receipt: the index URL"
assert_contains "$RECEIPT" '"distribution": "nvidia-cuda-nvcc"' "receipt: each wheel's project"
assert_contains "$RECEIPT" '"wheel": "nvidia_cuda_nvcc-13.2.75-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"' "receipt: the x86_64 wheel"
assert_contains "$RECEIPT" "$(sha256sum "$INDEX_ROOT"/files/nvidia_cuda_nvcc-13.2.75-*x86_64.whl | cut -c1-64)" "receipt: the wheel's sha256"
assert_contains "$RECEIPT" "\"url\": \"${MIRROR_URL}files/cuda_toolkit-13.2.1-py2.py3-none-any.whl\"" "receipt: the metapackage"
assert_contains "$RECEIPT" '"name": "libnvvm"' "receipt: profile components by their redist names"
assert_contains "$(cat "$HOME132/version.json")" '"version": "13.2.1"' "version.json names the label"
assert_contains "$ERR" "installed CUDA 13.2.1 from $INDEX" "install reports the index"
check "nvcc shim" test -e "$CUDAENV_ROOT/shims/nvcc"
assert_contains "$(CUDAENV_VERSION=13.2.1 "$CUDAENV_ROOT/shims/nvcc" --version)" "V13.2.75" "the shim runs the wheel's nvcc"
check "downloads deleted" test -z "$(find "$CUDAENV_ROOT/cache" -name '*.whl')"
check "no staging left" no_staging_left
check "PEP 503 page read (nvidia-cuda-runtime)" test -n "$(requests_for "HEAD /files/nvidia_cuda_runtime-13.2.75")"

pypi_install 13.2.1
assert_contains "$ERR" "already installed" "second install: already installed"

# The torch profile and an extra, each component from its own wheel; the nvjitlink range picks
# the release's own version, not a later one.
pypi_install 13.0.2 --profile torch --component cuda_cuobjdump
assert_eq 0 "$STATUS" "install 13.0.2 --profile torch: $ERR"
HOME130="$CUDAENV_ROOT/versions/13.0.2"
for header in cublas_v2.h cusparse.h cusolverDn.h nvrtc.h curand.h nvtx3/nvToolsExt.h cuda_profiler_api.h cupti.h cufft.h nvJitLink.h; do
  check "torch profile: $header" test -f "$HOME130/include/$header"
done
check "extra component: cuobjdump" test -x "$HOME130/bin/cuobjdump"
NVJITLINK=$(python3 -c 'import json, sys
print([c["version"] for c in json.load(open(sys.argv[1]))["components"] if c["name"] == "libnvjitlink"][0])' "$HOME130/cudaenv-install.json")
assert_eq "13.0.88" "$NVJITLINK" "nvjitlink's range pin takes the release's version"

# A wheel whose bytes differ from the index's sha256: refused before extraction, nothing left.
wheels pages --wrong-hash nvidia-cuda-nvcc
pypi_install 13.0.2 --force
assert_eq 1 "$STATUS" "a wheel with the wrong sha256 is refused"
assert_contains "$ERR" "nvidia_cuda_nvcc-13.0.88" "the error names the wheel"
assert_contains "$ERR" "but the index says" "the error says why"
assert_contains "$ERR" "another --index-url" "and names the fix"
check "the old 13.0.2 is kept" test -x "$HOME130/bin/nvcc"
check "no staging left after a bad hash" no_staging_left
pypi_install 13.2.2 --profile minimal
assert_eq 1 "$STATUS" "13.2.2 lacks nvidia-cuda-crt"
assert_contains "$ERR" "nvidia-cuda-crt" "the missing wheel is named"
assert_contains "$ERR" "13.2.75" "what exists is named"
check "nothing of 13.2.2 left" test ! -e "$CUDAENV_ROOT/versions/13.2.2"

# A wheel the index lists without a hash is refused.
wheels pages --no-hash nvidia-nvvm
pypi_install 13.0.2 --force
assert_eq 1 "$STATUS" "a wheel without a hash is refused"
assert_contains "$ERR" "without a sha256" "the error says so"
assert_contains "$ERR" "nvidia_nvvm-13.0.88" "and names the wheel"

# A wheel with a path that climbs out of the toolkit: refused, nothing written outside.
wheels hostile nvidia-cuda-runtime 13.0.88 "nvidia/cu13/../../../../escaped.txt"
wheels pages
pypi_install 13.0.2 --force
assert_eq 1 "$STATUS" "a wheel with a traversal member is refused"
assert_contains "$ERR" "'..'" "the refusal names the member"
assert_contains "$ERR" "whoever runs the index" "and who to tell"
check "nothing escaped" test -z "$(find "$WORK" -name escaped.txt)"
check "no staging left after a hostile wheel" no_staging_left

# A remote page whose link leads to a file on this machine: refused before any download, as pip
# does (a remote page never leads to local files).
wheels pages --file-url nvidia-cuda-nvcc
: >"$REQUEST_LOG"
pypi_install 13.0.2 --force
assert_eq 1 "$STATUS" "a file:// wheel on an http index page is refused"
assert_contains "$ERR" "$INDEX/nvidia-cuda-nvcc/ links nvidia_cuda_nvcc-13.0.88-py3-none-manylinux2014_" "naming the page and the wheel"
assert_contains "$ERR" ".whl to file://$INDEX_ROOT/files/nvidia_cuda_nvcc-13.0.88-py3-none-manylinux2014_" "and the link"
assert_contains "$ERR" "which a remote page may not: refused" "and why"
assert_eq "" "$(requests_for /files/nvidia_)" "no wheel was fetched"
check "the old 13.0.2 is kept" test -x "$HOME130/bin/nvcc"
check "no staging left after a file:// link" no_staging_left
wheels pages

# CUDA 12 and 11: their wheels carry ptxas but no nvcc; refused before any download.
: >"$REQUEST_LOG"
pypi_install 12.8
assert_eq 1 "$STATUS" "CUDA 12 from PyPI is refused"
assert_contains "$ERR" "carry ptxas but no nvcc" "the reason"
assert_contains "$ERR" "cudaenv install 12.8 --source redist" "the command that works"
pypi_install 11.8
assert_contains "$ERR" "nvidia-cuda-nvcc-cu11" "CUDA 11 too"
assert_eq "" "$(cat "$REQUEST_LOG")" "refused without asking the index"

pypi_install 13.2 --profile tiny
assert_eq 2 "$STATUS" "an unknown profile is a usage error"
assert_contains "$ERR" "unknown profile 'tiny'" "and says so"

# list-remote --source pypi: the metapackage's releases.
run_capture "$CUDAENV" list-remote --source pypi --index-url "$INDEX"
assert_eq 0 "$STATUS" "list-remote --source pypi: $ERR"
assert_eq "  13.2.2" "$(echo "$OUT" | head -1)" "newest first"
assert_contains "$OUT" "* 13.2.1" "installed ones marked"
assert_eq "13.2.2 13.2.1" "$("$CUDAENV" list-remote 13.2 --bare --source pypi --index-url "$INDEX" | tr '\n' ' ' | sed 's/ $//')" "prefix and --bare"
run_capture "$CUDAENV" list-remote --json --source pypi --index-url "$INDEX"
check "list-remote --source pypi --json" python3 -c '
import json, sys
rows = {row["version"]: row for row in json.loads(sys.argv[1])}
assert rows["13.0.2"] == {"version": "13.0.2", "installed": True, "installable": True, "source": sys.argv[2]}, rows
' "$OUT" "$INDEX"

# Where the index comes from: PIP_INDEX_URL, pip's config files, CUDAENV_SOURCE, cuda.toml.
wheels pages
"$CUDAENV" uninstall 13.2.1 --yes >/dev/null 2>&1
mkdir -p "$HOME/.config/pip"
printf '[global]\nindex-url = http://127.0.0.1:9/unused\n[install]\nindex-url = %s\n' "$INDEX" >"$HOME/.config/pip/pip.conf"
run_capture "$CUDAENV" install 13.2 --source pypi --platform linux-x86_64
assert_eq 0 "$STATUS" "pip's [install] index-url from ~/.config/pip/pip.conf: $ERR"
assert_contains "$ERR" "from $INDEX" "that index was used"
printf '[global]\nindex-url = http://127.0.0.1:9/broken\n' >"$WORK/pip-env.conf"
run_capture env PIP_CONFIG_FILE="$WORK/pip-env.conf" "$CUDAENV" list-remote --source pypi
assert_contains "$ERR" "127.0.0.1:9/broken" "PIP_CONFIG_FILE overrides the user file"
run_capture env PIP_CONFIG_FILE="$WORK/pip-env.conf" PIP_INDEX_URL="$INDEX" "$CUDAENV" list-remote --source pypi
assert_eq 0 "$STATUS" "PIP_INDEX_URL overrides every file: $ERR"
run_capture env PIP_INDEX_URL="ftp://x" "$CUDAENV" list-remote --source pypi
assert_eq 2 "$STATUS" "a bad PIP_INDEX_URL is a usage error"
assert_contains "$ERR" "package index PIP_INDEX_URL=ftp://x is not" "naming where it was set"

run_capture env CUDAENV_SOURCE=pypi "$CUDAENV" list-remote 13.0 --bare
assert_eq "13.0.2" "$OUT" "CUDAENV_SOURCE=pypi"
run_capture env CUDAENV_SOURCE=conda "$CUDAENV" install 13.2
assert_eq 2 "$STATUS" "an unknown CUDAENV_SOURCE"
assert_contains "$ERR" "CUDAENV_SOURCE=conda" "is named"

mkdir -p "$WORK/project" && cd "$WORK/project" || exit 1
printf '[cuda]\nversion = "13.2"\nsource = "pypi"\n' >cuda.toml
run_capture "$CUDAENV" install --force --platform linux-x86_64
assert_eq 0 "$STATUS" "cuda.toml's source = \"pypi\": $ERR"
assert_contains "$ERR" "installed CUDA 13.2.1 from $INDEX" "installed from the index"
printf '[cuda]\nversion = "13.2"\nsource = "conda"\n' >cuda.toml
run_capture "$CUDAENV" install
assert_contains "$ERR" "[cuda] source \"conda\" is unknown" "a bad cuda.toml source"
cd "$WORK" || exit 1

# A wheel longer than the index says: stopped at the index's size, and the fix names the index.
WHEEL=$(cd "$INDEX_ROOT" && ls files/nvidia_cuda_nvcc-13.2.75-*x86_64*.whl)
rm -f "$CUDAENV_ROOT"/cache/*nvidia_cuda_nvcc-13.2.75*
echo "/$WHEEL endless" >"$FAULTS"
pypi_install 13.2.1 --force
assert_eq 1 "$STATUS" "an endless wheel fails"
assert_contains "$ERR" "bytes the index gives" "at the index's size"
assert_contains "$ERR" "--index-url" "the fix names the index"
assert_not_contains "$ERR" "manifest" "and no manifest, which an index has not"
: >"$FAULTS"

finish

# A library writes only its own files into a toolkit: an nvidia-nccl-cu13 wheel that also carries
# nvidia/cu13/bin/gcc and nvidia/cu13/bin/nvcc.profile, and a cuDNN archive that carries bin/,
# nvvm/ and a toolkit header, install their headers and libraries and nothing else, said once per
# archive. The receipt records what each library added, and replacing a library takes away
# exactly what the old one added.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
. "$(dirname "$0")/lib_library.sh"

wheels nccl 2.27.7 13
wheels nccl 2.28.9 13
wheels hostile nvidia-nccl-cu13 2.28.9 nvidia/cu13/bin/gcc
wheels hostile nvidia-nccl-cu13 2.28.9 nvidia/cu13/bin/nvcc.profile
# A header only 2.27.7 has, in its own folder: replacing it with 2.28.9 must take it away.
wheels hostile nvidia-nccl-cu13 2.27.7 nvidia/nccl/include/nccl_only_2_27.h
wheels pages
add_fake_release 13.0.0
# The toolkit's own nvcc.profile, which nvcc reads.
mkdir -p "$WORK/parts/13.0.0/nvcc/bin"
printf 'INCLUDES += "-I$(TOP)/include"\n' >"$WORK/parts/13.0.0/nvcc/bin/nvcc.profile"
add_component 13.0.0 cuda_nvcc "13.0.$(nvcc_release_of 13.0.0)" "$WORK/parts/13.0.0/nvcc"
write_manifest 13.0.0

# A cuDNN archive that reaches beyond include/cudnn* and lib/libcudnn*.
add_fake_cudnn 9.10.0 9.10.0.56 13
TOP=cudnn-linux-x86_64-9.10.0.56_cuda13-archive
mkdir -p "$WORK/pack/$TOP/bin" "$WORK/pack/$TOP/nvvm/bin"
printf '#!/bin/sh\necho pwned\n' >"$WORK/pack/$TOP/bin/evil"
printf 'pwned\n' >"$WORK/pack/$TOP/nvvm/bin/cicc"
printf '#error pwned\n' >"$WORK/pack/$TOP/include/cuda_runtime.h"
CUDNN_ARCHIVE="$CUDNN_ROOT/cudnn/linux-x86_64/$TOP.tar.xz"
tar -cJf "$CUDNN_ARCHIVE" -C "$WORK/pack" "$TOP"
python3 - "$CUDNN_ROOT/redistrib_9.10.0.json" "$CUDNN_ARCHIVE" <<'PY'
import hashlib, json, os, sys
path, archive = sys.argv[1:]
manifest = json.load(open(path))
entry = manifest["cudnn"]["linux-x86_64"]["cuda13"]
entry["sha256"] = hashlib.sha256(open(archive, "rb").read()).hexdigest()
entry["size"] = str(os.path.getsize(archive))
json.dump(manifest, open(path, "w"))
PY
start_mirror
use_fake_cudnn
INDEX="${MIRROR_URL}simple"
export CUDAENV_MIRROR="$MIRROR_URL" CUDAENV_SKIP_MANIFEST_PIN=1
HOME13="$CUDAENV_ROOT/versions/13.0.0"
library_install() { run_capture "$CUDAENV" install 13.0.0 --platform linux-x86_64 --index-url "$INDEX" "$@"; }
receipt_files() {  # receipt_files COMPONENT: the files the receipt says it added, one per line
  python3 -c 'import json, sys
for entry in json.load(open(sys.argv[1]))["components"]:
    if entry["name"] == sys.argv[2]: print("\n".join(entry.get("files", [])))' "$HOME13/cudaenv-install.json" "$1"
}

library_install --library nccl@2.28
assert_eq 0 "$STATUS" "the NCCL wheel installs its own files: $ERR"
WHEEL=nvidia_nccl_cu13-2.28.9-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
assert_contains "$ERR" "warning: nccl: $WHEEL holds 2 files where a library may not write (it may write include/nccl*, lib/libnccl*), not installed: nvidia/cu13/bin/gcc, nvidia/cu13/bin/nvcc.profile" \
  "the files outside are named, once"
assert_eq 1 "$(grep -c 'where a library may not write' <<<"$ERR")" "said once for the wheel"
check "no gcc in the toolkit's bin/" test ! -e "$HOME13/bin/gcc"
assert_eq 'INCLUDES += "-I$(TOP)/include"' "$(cat "$HOME13/bin/nvcc.profile")" "nvcc.profile is the toolkit's"
check "NCCL's header is there" grep -q "NCCL_MINOR 28" "$HOME13/include/nccl.h"
check "and its library" test -f "$HOME13/lib/libnccl.so.2"
assert_eq "include/nccl.h
lib/libnccl.so
lib/libnccl.so.2" "$(receipt_files nccl)" "the receipt lists what NCCL added, the link -lnccl needs included"
assert_eq "" "$(receipt_files cuda_nvcc)" "and nothing for a toolkit component"

# Replacing NCCL: what only the old one added goes.
library_install --library nccl@2.27
assert_eq 0 "$STATUS" "NCCL 2.27 in place of 2.28: $ERR"
check "2.27's own header is there" test -f "$HOME13/include/nccl_only_2_27.h"
assert_contains "$(receipt_files nccl)" "include/nccl_only_2_27.h" "the receipt lists it"
library_install --library nccl@2.28
assert_eq 0 "$STATUS" "NCCL 2.28 in place of 2.27: $ERR"
check "2.27's own header went with it" test ! -e "$HOME13/include/nccl_only_2_27.h"
assert_not_contains "$(receipt_files nccl)" "nccl_only_2_27.h" "and left the receipt"
check "the toolkit stays whole" test -x "$HOME13/bin/nvcc"

# cuDNN from its redist archive: include/cudnn* and lib/libcudnn* only.
rm -rf "$HOME13"
library_install --library cudnn
assert_eq 0 "$STATUS" "the cuDNN archive installs its own files: $ERR"
assert_contains "$ERR" "warning: cudnn: $TOP.tar.xz holds 3 files where a library may not write (it may write include/cudnn*, lib/libcudnn*), not installed:" \
  "cuDNN's files outside are said"
for outside in bin/evil include/cuda_runtime.h nvvm/bin/cicc; do
  assert_contains "$ERR" "$TOP/$outside" "$outside is named"
done
check "no bin/evil" test ! -e "$HOME13/bin/evil"
check "nvvm/bin/cicc is the toolkit's" grep -qx "cicc 13.0.0" "$HOME13/nvvm/bin/cicc"
check "include/cuda_runtime.h is the toolkit's" test -z "$(grep -l pwned "$HOME13/include/cuda_runtime.h" 2>/dev/null)"
check "cuDNN's headers are there" test -f "$HOME13/include/cudnn_version.h"
assert_eq "include/cudnn.h
include/cudnn_version.h
lib/libcudnn.so
lib/libcudnn.so.9
licenses/cudnn/LICENSE" "$(receipt_files cudnn)" "the receipt lists what cuDNN added"

finish

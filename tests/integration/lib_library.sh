# Helpers for the library suites (cuDNN into a toolkit): a cuDNN redist folder in NVIDIA's format
# inside the test mirror, at $CUDNN_URL (CUDAENV_CUDNN_MIRROR). Source after lib_install.sh.

CUDNN_ROOT="$MIRROR_ROOT/cudnn-redist"
mkdir -p "$CUDNN_ROOT"

# add_fake_cudnn LABEL VERSION MAJOR...: redistrib_LABEL.json with one archive per CUDA major
# (cuda12, cuda13, ...), each holding include/cudnn_version.h and lib/libcudnn.so.N as cuDNN's do.
add_fake_cudnn() {
  local label=$1 version=$2
  shift 2
  local major_v=${version%%.*} rest=${version#*.}
  local minor_v=${rest%%.*} patch_v=${rest#*.}
  patch_v=${patch_v%%.*}
  : >"$WORK/cudnn-$label.tsv"
  for cuda in "$@"; do
    local top="cudnn-linux-x86_64-${version}_cuda$cuda-archive"
    local relative="cudnn/linux-x86_64/$top.tar.xz"
    rm -rf "$WORK/pack" && mkdir -p "$WORK/pack/$top/include" "$WORK/pack/$top/lib" "$CUDNN_ROOT/cudnn/linux-x86_64"
    printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$major_v" "$minor_v" "$patch_v" \
      >"$WORK/pack/$top/include/cudnn_version.h"
    echo '#include "cudnn_version.h"' >"$WORK/pack/$top/include/cudnn.h"
    printf 'ELF-ish cudnn %s for CUDA %s\n' "$version" "$cuda" >"$WORK/pack/$top/lib/libcudnn.so.$major_v"
    ln -s "libcudnn.so.$major_v" "$WORK/pack/$top/lib/libcudnn.so"
    echo "cuDNN license" >"$WORK/pack/$top/LICENSE"
    tar -cJf "$CUDNN_ROOT/$relative" -C "$WORK/pack" "$top"
    printf '%s\t%s\t%s\t%s\n' "$cuda" "$relative" "$(sha256sum "$CUDNN_ROOT/$relative" | cut -c1-64)" \
      "$(stat -c %s "$CUDNN_ROOT/$relative")" >>"$WORK/cudnn-$label.tsv"
  done
  python3 - "$label" "$version" "$WORK/cudnn-$label.tsv" "$CUDNN_ROOT/redistrib_$label.json" <<'PY'
import json, sys
label, version, table, out = sys.argv[1:]
variants, majors = {}, []
for line in open(table):
    cuda, rel, sha, size = line.rstrip("\n").split("\t")
    majors.append(cuda)
    variants["cuda" + cuda] = {"relative_path": rel, "sha256": sha, "md5": "0" * 32, "size": size}
manifest = {"release_date": "2025-05-01", "release_label": label, "release_product": "cudnn",
            "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn", "version": version,
                      "cuda_variant": majors, "linux-x86_64": variants}}
json.dump(manifest, open(out, "w"), indent=4)
PY
}

# After start_mirror: where cudaenv finds the fake cuDNN folder.
use_fake_cudnn() {
  export CUDNN_URL="${MIRROR_URL}cudnn-redist/" CUDAENV_CUDNN_MIRROR="${MIRROR_URL}cudnn-redist/"
}

# add_torch_components LABEL [KBYTES]: the torch profile's components that add_fake_release lacks
# (cublas, cusparse, cusolver, nvrtc, nvtx, profiler_api, cupti, cufft, nvjitlink), each a header
# and a library of KBYTES (default 16) of incompressible bytes, added to LABEL's manifest.
add_torch_components() {
  local label=$1 kbytes=${2:-16} component
  for component in libcublas libcusparse libcusolver cuda_nvrtc cuda_nvtx cuda_profiler_api cuda_cupti libcufft \
    libnvjitlink; do
    mkdir -p "$WORK/parts/$label/$component/include" "$WORK/parts/$label/$component/lib"
    echo '#pragma once' >"$WORK/parts/$label/$component/include/$component.h"
    head -c "${kbytes}k" /dev/urandom >"$WORK/parts/$label/$component/lib/$component.so"
    add_component "$label" "$component" "${label%.*}.$(nvcc_release_of "$label")" "$WORK/parts/$label/$component"
  done
  write_manifest "$label"
}

# Helpers for the install suites: a redist-format fixture mirror built on the spot and the
# loopback test_mirror serving it. Source after lib.sh.

MIRROR_BIN="$BUILD/tests/test_mirror"
MIRROR_ROOT="$WORK/mirror"
FAULTS="$WORK/faults"
REQUEST_LOG="$WORK/requests.log"
MIRROR_PID=
SERVER_PIDS=()
mkdir -p "$MIRROR_ROOT"
: >"$FAULTS"
trap 'stop_mirror; rm -rf "$WORK"' EXIT

start_mirror() {
  "$MIRROR_BIN" --root "$MIRROR_ROOT" --faults "$FAULTS" --log "$REQUEST_LOG" >"$WORK/mirror.port" &
  MIRROR_PID=$!
  wait_until 5 test -s "$WORK/mirror.port"
  MIRROR_URL="http://127.0.0.1:$(cat "$WORK/mirror.port")/"
}

# serve_folder DIR NAME: one more loopback server (another host to cudaenv: its own port) for
# DIR; sets $NAME to its URL (ending in '/'), logs its requests in $WORK/NAME.log.
serve_folder() {
  "$MIRROR_BIN" --root "$1" --log "$WORK/$2.log" >"$WORK/$2.port" &
  SERVER_PIDS+=("$!")
  wait_until 5 test -s "$WORK/$2.port"
  printf -v "$2" 'http://127.0.0.1:%s/' "$(cat "$WORK/$2.port")"
  : >"$WORK/$2.log"
}

stop_mirror() {
  [ -n "$MIRROR_PID" ] && kill "$MIRROR_PID" 2>/dev/null
  MIRROR_PID=
  for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  SERVER_PIDS=()
}

# add_component LABEL COMPONENT VERSION SOURCE_DIR [tar compression flag]: packs SOURCE_DIR's
# contents as <component>/linux-x86_64/<component>-linux-x86_64-<version>-archive.tar.xz
# (one top folder, as NVIDIA's archives) and records it for write_manifest.
add_component() {
  local label=$1 component=$2 version=$3 source=$4 compress=${5:--J}
  local ext=tar.xz
  [ "$compress" = "-z" ] && ext=tar.gz
  [ "$compress" = "--no-auto-compress" ] && ext=tar
  local top="$component-linux-x86_64-$version-archive"
  local relative="$component/linux-x86_64/$top.$ext"
  local staging="$WORK/pack/$top"
  rm -rf "$WORK/pack" && mkdir -p "$staging" "$MIRROR_ROOT/$component/linux-x86_64"
  cp -a "$source/." "$staging/"
  printf '%s license\n' "$component" >"$staging/LICENSE"  # as in NVIDIA's archives
  if [ "$compress" = "--no-auto-compress" ]; then
    tar -cf "$MIRROR_ROOT/$relative" -C "$WORK/pack" "$top"
  else
    tar "$compress" -cf "$MIRROR_ROOT/$relative" -C "$WORK/pack" "$top"
  fi
  add_archive "$label" "$component" "$version" "$relative"
}

# add_archive LABEL COMPONENT VERSION RELATIVE_PATH: records an archive already in the mirror.
add_archive() {
  local file="$MIRROR_ROOT/$4"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$(sha256sum "$file" | cut -c1-64)" \
    "$(stat -c %s "$file")" >>"$WORK/components.tsv"
}

# write_manifest LABEL: redistrib_LABEL.json in NVIDIA's format (size as a string, no
# release_label for old labels, a non-toolkit entry and a windows platform for realism).
write_manifest() {
  python3 - "$1" "$WORK/components.tsv" "$MIRROR_ROOT/redistrib_$1.json" <<'PY'
import json, sys
label, table, out = sys.argv[1:]
manifest = {"release_date": "2023-04-19"}
if label >= "12.2":
    manifest["release_label"] = label
    manifest["release_product"] = "cuda"
for line in open(table):
    lab, comp, ver, rel, sha, size = line.rstrip("\n").split("\t")
    if lab != label:
        continue
    manifest[comp] = {"name": comp.upper(), "license": "CUDA Toolkit", "version": ver,
                      "linux-x86_64": {"relative_path": rel, "sha256": sha, "md5": "0" * 32, "size": size},
                      "windows-x86_64": {"relative_path": rel.replace("linux", "windows") + ".zip",
                                         "sha256": "f" * 64, "md5": "0" * 32, "size": "1"}}
manifest["nvidia_driver"] = {"name": "NVIDIA Linux Driver", "license": "NVIDIA Driver", "version": "530.30.02",
                             "linux-x86_64": {"relative_path": "nvidia_driver/x.tar.xz", "sha256": "e" * 64,
                                              "md5": "0" * 32, "size": "1"}}
json.dump(manifest, open(out, "w"), indent=4)
PY
}

# add_fake_release LABEL: the minimal profile's components for LABEL, cut from a fake toolkit
# whose bin/nvcc prints the real banner, plus libcurand as an optional extra. As NVIDIA's: 13.x
# adds cuda_crt and libnvvm, and from 13.3.0 CCCL is called cccl.
add_fake_release() {
  local label=$1 tree="$WORK/fake-$1" cccl=cuda_cccl
  [ "$(printf '%s\n' 13.3.0 "$label" | sort -V | head -1)" = 13.3.0 ] && cccl=cccl
  make_fake_toolkit "$tree" "$label"
  local nvcc_version=${label%.*}.$(nvcc_release_of "$label")
  mkdir -p "$WORK/parts/$label"/{nvcc,cudart/lib,cccl/include/nv,curand/include}
  cp -a "$tree/bin" "$WORK/parts/$label/nvcc/"
  cp -a "$tree/include" "$WORK/parts/$label/cudart/"
  printf 'ELF-ish %s\n' "$label" >"$WORK/parts/$label/cudart/lib/libcudart.so.${label%%.*}"
  ln -s "libcudart.so.${label%%.*}" "$WORK/parts/$label/cudart/lib/libcudart.so"
  echo '#pragma once' >"$WORK/parts/$label/cccl/include/nv/target"
  echo '#pragma once' >"$WORK/parts/$label/curand/include/curand.h"
  add_component "$label" cuda_nvcc "$nvcc_version" "$WORK/parts/$label/nvcc"
  add_component "$label" cuda_cudart "$nvcc_version" "$WORK/parts/$label/cudart"
  add_component "$label" "$cccl" "$nvcc_version" "$WORK/parts/$label/cccl"
  if [ "${label%%.*}" -ge 13 ]; then
    mkdir -p "$WORK/parts/$label"/{crt/include/crt,nvvm/nvvm/bin}
    echo '#pragma once' >"$WORK/parts/$label/crt/include/crt/host_config.h"
    printf 'cicc %s\n' "$label" >"$WORK/parts/$label/nvvm/nvvm/bin/cicc"
    add_component "$label" cuda_crt "$nvcc_version" "$WORK/parts/$label/crt"
    add_component "$label" libnvvm "$nvcc_version" "$WORK/parts/$label/nvvm"
  fi
  add_component "$label" libcurand "10.3.$(nvcc_release_of "$label")" "$WORK/parts/$label/curand"
  write_manifest "$label"
}

# add_noise_component LABEL COMPONENT KBYTES: an archive of incompressible data (for slow
# transfers that a test interrupts), added to LABEL's manifest.
add_noise_component() {
  local label=$1 component=$2 kbytes=$3
  mkdir -p "$WORK/parts/$label/$component/share"
  head -c "${kbytes}k" /dev/urandom >"$WORK/parts/$label/$component/share/$component.bin"
  add_component "$label" "$component" 1.0 "$WORK/parts/$label/$component" -z
  write_manifest "$label"
}

# install_from_mirror ARGS...: cudaenv install against the test mirror; sets OUT/ERR/STATUS.
install_from_mirror() {
  run_capture "$CUDAENV" install --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64 "$@"
}

requests_for() {  # requests_for SUBSTRING: the request-log lines naming it
  grep -F "$1" "$REQUEST_LOG" 2>/dev/null || true
}

# The test mirror is a package index too (${MIRROR_URL}simple) once `wheels` has written it:
# wheels ARGS... runs tests/support/cuda_wheel_index.py on it. No pip setting of the machine's
# reaches the tests.
unset PIP_INDEX_URL PIP_CONFIG_FILE VIRTUAL_ENV XDG_CONFIG_HOME XDG_CONFIG_DIRS
INDEX_ROOT="$MIRROR_ROOT"
wheels() { python3 "$SRC/tests/support/cuda_wheel_index.py" "$INDEX_ROOT" "$@"; }

no_staging_left() {
  ! ls -a "$CUDAENV_ROOT/versions" 2>/dev/null | grep -q '^\.staging-'
}

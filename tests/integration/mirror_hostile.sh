# Hostile manifests cannot steer where install and mirror sync write: a relative_path outside its
# component's folder, naming a manifest or the mirror index, or shared by two components is
# refused, blaming the manifest; mirror sync never replaces another release's files.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
. "$(dirname "$0")/lib_mirror.sh"

add_fake_release 12.1.1
add_fake_release 12.4.0
start_mirror
NVCC=$(archive_of cuda_nvcc 12.1.1)

# hostile LABEL PYTHON: rewrites redistrib_LABEL.json in the upstream; `m` is the manifest.
hostile() {
  python3 - "$MIRROR_ROOT/redistrib_$1.json" "$2" <<'PY'
import json, sys
path, code = sys.argv[1:]
m = json.load(open(path))
exec(code)
json.dump(m, open(path, "w"), indent=2)
PY
}

refused() {  # refused WHAT NEEDLE: install and sync of 12.4.0 both fail on the manifest
  install_from_mirror 12.4.0
  assert_eq 1 "$STATUS" "$1: install is refused"
  assert_contains "$ERR" "$2" "$1: the error names the entry"
  assert_contains "$ERR" "not the network" "$1: and blames the manifest"
  check "$1: nothing installed" test ! -e "$CUDAENV_ROOT/versions/12.4.0"
  sync 12.4.0
  assert_eq 1 "$STATUS" "$1: sync is refused"
  assert_contains "$ERR" "$2" "$1: sync names the entry"
  check "$1: the mirror gained nothing" test ! -e "$LOCAL/redistrib_12.4.0.json"
}

cp "$MIRROR_ROOT/redistrib_12.4.0.json" "$WORK/good-12.4.0.json"
restore() { cp "$WORK/good-12.4.0.json" "$MIRROR_ROOT/redistrib_12.4.0.json"; }

sync 12.1.1
assert_eq 0 "$STATUS" "sync 12.1.1: $ERR"
cp "$LOCAL/$NVCC" "$WORK/nvcc-12.1.1"

hostile 12.4.0 'm["cuda_nvcc"]["linux-x86_64"]["relative_path"] = "../../escaped.tar.xz"'
refused "a path escaping the folder" "cuda_nvcc.linux-x86_64: relative_path '../../escaped.tar.xz' is not a clean relative path"
check "nothing written outside the mirror" test ! -e "$WORK/escaped.tar.xz"
restore

hostile 12.4.0 'm["cuda_nvcc"]["linux-x86_64"]["relative_path"] = "cuda_cudart/linux-x86_64/x.tar.xz"'
refused "another component's folder" "lies outside the component's folder cuda_nvcc/"
restore

hostile 12.4.0 'm["cuda_nvcc"]["linux-x86_64"]["relative_path"] = "cuda_nvcc/redistrib_12.1.1.json"'
refused "a manifest's name" "names a manifest"
restore

hostile 12.4.0 'm["cuda_nvcc"]["linux-x86_64"]["relative_path"] = "cuda_nvcc/cudaenv-mirror.json"'
refused "the mirror index's name" "names the mirror index"
restore

hostile 12.4.0 'm["cuda_cudart"]["linux-x86_64"]["relative_path"] = "cuda_cudart/" + m["cuda_nvcc"]["linux-x86_64"]["relative_path"].split("/")[-1]'
refused "two components sharing a file name" "both name a file cuda_nvcc-linux-x86_64-12.4.131-archive.tar.xz"
restore

# A release that points at the file another release holds, with other content, is refused;
# the held file is unchanged and the mirror still verifies.
hostile 12.4.0 "m['cuda_nvcc']['linux-x86_64']['relative_path'] = '$NVCC'"
sync 12.4.0
assert_eq 1 "$STATUS" "a sync that would replace 12.1.1's archive is refused"
assert_contains "$ERR" "puts an archive at $NVCC, where the mirror holds CUDA 12.1.1's file" "naming both releases"
check "12.1.1's archive is untouched" cmp "$WORK/nvcc-12.1.1" "$LOCAL/$NVCC"
run_capture "$CUDAENV" mirror verify "$LOCAL"
assert_eq 0 "$STATUS" "the mirror still verifies: $ERR"
restore

# The same archive in two releases (a component an update left alone) is shared, not refused.
hostile 12.4.0 "
import json as j
old = j.load(open('$MIRROR_ROOT/redistrib_12.1.1.json'))
m['cuda_cccl'] = old['cuda_cccl']"
sync 12.4.0
assert_eq 0 "$STATUS" "two releases may share an identical archive: $ERR"
run_capture "$CUDAENV" mirror verify "$LOCAL"
assert_eq 0 "$STATUS" "and the mirror verifies: $ERR"
finish

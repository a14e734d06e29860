# `cudaenv config` lists every setting with where it came from, and errors about a setting
# name the place it was set (CUDAENV_MIRROR, not --mirror).
. "$(dirname "$0")/lib.sh"

run_capture "$CUDAENV" config
assert_eq 0 "$STATUS" "config runs: $ERR"
assert_contains "$OUT" "(default) version = system" "no version set: the fallback toolkit"
assert_contains "$OUT" "(CUDAENV_ROOT) root = $CUDAENV_ROOT" "the root and its variable"
assert_contains "$OUT" "(default) source = redist" "NVIDIA's redist archives by default"
assert_contains "$OUT" "(default) mirror = https://developer.download.nvidia.com/compute/cuda/redist/" "NVIDIA's folder by default"
assert_contains "$OUT" "(default) profile = minimal" "the catalog's default profile"
assert_contains "$OUT" "(default) jobs = 4" "four downloads at once"
assert_contains "$OUT" "(default) skip_manifest_pin = 0" "manifest pins are checked"
assert_contains "$OUT" "(default) text_timeout = 60" "a text download has a minute across its tries"

mkdir -p "$WORK/proj"
printf '[cuda]\nversion = "12.4"\nprofile = "torch"\nsource = "pypi"\n' >"$WORK/proj/cuda.toml"
run_capture env -C "$WORK/proj" CUDAENV_MIRROR=file:///srv/redist/ CUDAENV_SKIP_MANIFEST_PIN=1 \
  CUDAENV_SHARED_ROOT=/opt/cudaenv CUDAENV_TORCH_INDEX=https://torch.example/whl CUDAENV_TEXT_TIMEOUT=300 "$CUDAENV" config
assert_eq 0 "$STATUS" "config in a project: $ERR"
assert_contains "$OUT" "($WORK/proj/cuda.toml) version = 12.4" "the pin and its file"
assert_contains "$OUT" "($WORK/proj/cuda.toml) profile = torch" "cuda.toml's profile"
assert_contains "$OUT" "($WORK/proj/cuda.toml) source = pypi" "cuda.toml's source"
assert_contains "$OUT" "(CUDAENV_MIRROR) mirror = file:///srv/redist/" "the mirror variable"
assert_contains "$OUT" "(CUDAENV_SKIP_MANIFEST_PIN) skip_manifest_pin = 1" "the pin variable"
assert_contains "$OUT" "(CUDAENV_SHARED_ROOT) shared_root = /opt/cudaenv" "the shared root"
assert_contains "$OUT" "(CUDAENV_TORCH_INDEX) torch_index = https://torch.example/whl" "the torch index"
assert_contains "$OUT" "(CUDAENV_TEXT_TIMEOUT) text_timeout = 300" "the text downloads' deadline"
# The settings only a variable gives: every one is listed, each with its origin (lib.sh sets
# CUDAENV_TORCH_OFFLINE).
for key in cudnn_mirror download_timeout driver_version manifests_dir quiet scan_dirs; do
  assert_contains "$OUT" "(default) $key = " "$key is listed, from its default"
done
assert_contains "$OUT" "(CUDAENV_TORCH_OFFLINE) torch_offline = 1" "torch_offline, from its variable"
run_capture env CUDAENV_CUDNN_MIRROR=https://m/cudnn/ CUDAENV_DOWNLOAD_TIMEOUT=90 CUDAENV_DRIVER_VERSION=580.65.06 \
  CUDAENV_MANIFESTS_DIR="$SRC/manifests" CUDAENV_QUIET=1 CUDAENV_SCAN_DIRS=/opt/a:/opt/b "$CUDAENV" config
assert_contains "$OUT" "(CUDAENV_CUDNN_MIRROR) cudnn_mirror = https://m/cudnn/" "the cuDNN mirror's variable"
assert_contains "$OUT" "(CUDAENV_DOWNLOAD_TIMEOUT) download_timeout = 90" "one transfer's deadline"
assert_contains "$OUT" "(CUDAENV_DRIVER_VERSION) driver_version = 580.65.06" "the driver stand-in"
assert_contains "$OUT" "(CUDAENV_MANIFESTS_DIR) manifests_dir = $SRC/manifests" "the data folder"
assert_contains "$OUT" "(CUDAENV_QUIET) quiet = 1" "the hook's quiet switch"
assert_contains "$OUT" "(CUDAENV_SCAN_DIRS) scan_dirs = /opt/a:/opt/b" "where add --scan looks"
run_capture env CUDAENV_SYSTEM_ROOT=/opt/old "$CUDAENV" config
assert_contains "$OUT" "(CUDAENV_SYSTEM_ROOT) shared_root = /opt/old" "the shared root's old name, named as set"

run_capture env -C "$WORK/proj" CUDAENV_VERSION=12.1 "$CUDAENV" config --json
assert_eq 0 "$STATUS" "config --json: $ERR"
check "config --json is JSON with each value and origin" python3 -c '
import json, sys
settings = json.loads(sys.argv[1])
assert list(settings)[:5] == ["version", "root", "shared_root", "source", "mirror"], list(settings)
assert settings["version"] == {"value": "12.1", "origin": "CUDAENV_VERSION"}, settings["version"]
assert settings["jobs"] == {"value": "4", "origin": "default"}, settings["jobs"]
' "$OUT"

run_capture env CUDAENV_MIRROR=ftp://x "$CUDAENV" list-remote
assert_eq 2 "$STATUS" "a bad CUDAENV_MIRROR is a usage error"
assert_contains "$ERR" "mirror CUDAENV_MIRROR=ftp://x is not an http://, https:// or file:// URL" "the error names the variable"
assert_contains "$ERR" "set CUDAENV_MIRROR to https://" "and the fix is to the variable"
assert_not_contains "$ERR" "--mirror" "not the option nobody gave"
run_capture "$CUDAENV" list-remote --mirror ftp://x
assert_contains "$ERR" "mirror --mirror ftp://x is not" "a bad --mirror is named as the option"
run_capture env CUDAENV_SOURCE=conda "$CUDAENV" install 12.4
assert_eq 2 "$STATUS" "an unknown CUDAENV_SOURCE is a usage error"
assert_contains "$ERR" "CUDAENV_SOURCE=conda is not a source" "named as the variable it was set in"

# The package index of --source pypi: shown with its origin, and an error names where it was set.
run_capture env PIP_CONFIG_FILE=/dev/null "$CUDAENV" config
assert_contains "$OUT" "(default) index_url = https://pypi.org/simple" "config shows PyPI as the default index"
run_capture env PIP_INDEX_URL=https://proxy.example/simple "$CUDAENV" config --json
check "config --json names PIP_INDEX_URL as the index's origin" python3 -c '
import json, sys
index = json.loads(sys.argv[1])["index_url"]
assert index == {"value": "https://proxy.example/simple", "origin": "PIP_INDEX_URL"}, index
' "$OUT"
mkdir -p "$WORK/pipconf"
printf '[global]\nindex-url = ftp://from-file\n' >"$WORK/pipconf/pip.conf"
run_capture env PIP_CONFIG_FILE="$WORK/pipconf/pip.conf" "$CUDAENV" config
assert_contains "$OUT" "($WORK/pipconf/pip.conf) index_url = ftp://from-file" "config names pip's file as the origin"
run_capture env PIP_CONFIG_FILE="$WORK/pipconf/pip.conf" "$CUDAENV" install 12.4 --source pypi
assert_eq 2 "$STATUS" "a bad index-url in pip's file is a usage error"
assert_contains "$ERR" "package index index-url = ftp://from-file in $WORK/pipconf/pip.conf is not an http://" \
  "the error names pip's file"
run_capture env PIP_INDEX_URL=ftp://x "$CUDAENV" install 12.4 --source pypi
assert_contains "$ERR" "package index PIP_INDEX_URL=ftp://x is not an http://" "the error names PIP_INDEX_URL"
run_capture env PIP_INDEX_URL=ftp://x "$CUDAENV" install 12.4 --source pypi --index-url ftp://y
assert_contains "$ERR" "package index --index-url ftp://y is not an http://" "--index-url comes first and is named"

printf '[cuda\n' >"$WORK/proj/cuda.toml"
run_capture env -C "$WORK/proj" "$CUDAENV" config
assert_eq 1 "$STATUS" "a broken cuda.toml is an error"
assert_contains "$ERR" "$WORK/proj/cuda.toml" "naming the file"
finish

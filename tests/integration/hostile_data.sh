# Hostile data never ends in an internal error, and what it holds reaches the terminal escaped:
# a mirror index with wrong types, a version file naming a path, a cuda.h with a huge
# CUDA_VERSION, ESC sequences in a cuda.toml, a folder name and a manifest's component name.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_shell.sh"

ESC=$(printf '\033')
no_raw_control() {  # no_raw_control TEXT WHAT: no ESC, BEL or C1 CSI byte in TEXT
  CHECKS=$((CHECKS + 1))
  case "$1" in
    *"$ESC"* | *$'\a'* | *$'\x9b'*) fail "$2: a raw control byte reached the terminal: [$1]" ;;
  esac
}
clean_error() {  # clean_error WHAT NEEDLE: the last run_capture failed with one clear error
  assert_eq 1 "$STATUS" "$1: exit status"
  assert_contains "$ERR" "$2" "$1: the error names what is wrong"
  assert_not_contains "$ERR" "internal error" "$1: no internal error"
  assert_not_contains "$ERR" "bug:" "$1: no misused result"
}

# A mirror index whose release label is a number.
mkdir -p "$WORK/mirror"
printf '{"releases":[{"label":12}]}' >"$WORK/mirror/cudaenv-mirror.json"
run_capture "$CUDAENV" list-remote --mirror "file://$WORK/mirror/"
assert_contains "$ERR" "cudaenv-mirror.json: releases[0].label must be a string" \
  "list-remote on an index with a numeric label says what is wrong with it"
assert_not_contains "$ERR" "internal error" "list-remote on an index with a numeric label"
run_capture "$CUDAENV" mirror verify "$WORK/mirror"
clean_error "mirror verify on that index" "releases[0].label must be a string"

# Empty folder arguments (fs::absolute throws on them).
run_capture "$CUDAENV" mirror verify ""
assert_eq 2 "$STATUS" "mirror verify '' is a usage error"
assert_contains "$ERR" "FOLDER is empty" "mirror verify '' says what is missing"
run_capture "$CUDAENV" mirror sync 12.4 --to ""
assert_contains "$ERR" "--to is empty" "mirror sync --to '' says what is missing"
assert_not_contains "$ERR" "internal error" "mirror sync --to ''"

# The global version file, and version requests from anywhere, are names, never paths.
mkdir -p "$CUDAENV_ROOT"
printf '../../etc\n' >"$CUDAENV_ROOT/version"
for command in global current prefix "which nvcc" "exec true" env versions; do
  run_capture "$CUDAENV" $command
  assert_not_contains "$ERR" "internal error" "\`cudaenv $command\` with ../../etc in the version file"
  assert_not_contains "$ERR" "bug:" "\`cudaenv $command\` with ../../etc in the version file (misused result)"
  assert_contains "$ERR" "'../../etc' (set by $CUDAENV_ROOT/version) is not a version" \
    "\`cudaenv $command\` names the version file"
done
rm "$CUDAENV_ROOT/version"
for command in prefix uninstall module "shell --shell-code=bash"; do
  run_capture "$CUDAENV" $command ../../etc
  assert_contains "$ERR" "'../../etc'" "\`cudaenv $command ../../etc\` quotes it"
  assert_contains "$ERR" "is not a version" "\`cudaenv $command ../../etc\` is refused as no version"
  assert_not_contains "$ERR" "add PATH --as ../../etc" "\`cudaenv $command ../../etc\` suggests no path as a name"
done
# Every command that takes a VERSION argument checks it the same way: a usage error, exit 2.
for command in use global prefix module "shell --shell-code=bash"; do
  run_capture "$CUDAENV" $command 'not a/version'
  assert_eq 2 "$STATUS" "\`cudaenv $command 'not a/version'\` is a usage error"
  assert_contains "$ERR" "cudaenv: error: 'not a/version' is not a version" "\`cudaenv $command 'not a/version'\` says why"
  assert_contains "$ERR" "  use a version such as 12.1 or 12.1.1, or 'system'" "\`cudaenv $command 'not a/version'\` gives the fix"
done
run_capture "$CUDAENV" exec --cuda 'not a/version' -- true
assert_eq 2 "$STATUS" "\`cudaenv exec --cuda 'not a/version'\` is a usage error, like a VERSION argument"
assert_contains "$ERR" "cudaenv: error: 'not a/version' is not a version" "\`cudaenv exec --cuda 'not a/version'\` says why"
run_capture env CUDAENV_VERSION=../../etc "$CUDAENV" prefix
assert_contains "$ERR" "(set by CUDAENV_VERSION) is not a version" "CUDAENV_VERSION=../../etc is refused"

# A cuda.h with a CUDA_VERSION no int holds.
mkdir -p "$WORK/huge/bin" "$WORK/huge/include"
printf '#!/bin/sh\necho no banner\n' >"$WORK/huge/bin/nvcc"
chmod +x "$WORK/huge/bin/nvcc"
printf '#define CUDA_VERSION 99999999999999999999\n' >"$WORK/huge/include/cuda.h"
run_capture "$CUDAENV" add "$WORK/huge"
clean_error "add of a toolkit whose cuda.h has a huge CUDA_VERSION" "cannot tell the CUDA version of $WORK/huge"
check "that toolkit can still be added under a name" "$CUDAENV" add "$WORK/huge" --as huge
run_capture "$CUDAENV" versions
assert_eq 0 "$STATUS" "versions lists a toolkit with a huge CUDA_VERSION"
"$CUDAENV" uninstall huge >/dev/null 2>&1 </dev/null

# A gcc-N on PATH whose N no int holds.
mkdir -p "$WORK/gccs"
printf '#!/bin/sh\n' >"$WORK/gccs/gcc-99999999999999"
chmod +x "$WORK/gccs/gcc-99999999999999"
run_capture env PATH="$WORK/gccs:$PATH" "$CUDAENV" doctor
assert_not_contains "$ERR" "internal error" "doctor with gcc-99999999999999 on PATH"
# The summary line; "1 check passed" on a machine with no toolkit and no driver.
check "doctor with gcc-99999999999999 on PATH prints its report" \
  grep -qE '^[0-9]+ errors?, [0-9]+ warnings?, [0-9]+ checks? passed' <<<"$OUT"

# A probe timeout no milliseconds count holds.
for timeout in inf 1e300 nan; do
  run_capture "$CUDAENV" doctor --timeout "$timeout"
  assert_eq 2 "$STATUS" "doctor --timeout $timeout is a usage error"
done

# ESC sequences from a cuda.toml, a folder name and a manifest: shown escaped.
setup_projects
mkdir -p "$WORK/esc-version"
printf '[cuda]\nversion = "\\u001b]0;owned\\u0007\\u001b[31m12.1"\n' >"$WORK/esc-version/cuda.toml"
(cd "$WORK/esc-version" && run_capture "$CUDAENV" current && no_raw_control "$OUT$ERR" "current in a cuda.toml with ESC in its version" &&
  assert_contains "$ERR" '\x1b]0;owned\x07\x1b[31m12.1' "the version is quoted escaped")
ESCDIR="$WORK/dir-${ESC}[31mred${ESC}]0;title$(printf '\a')"
mkdir -p "$ESCDIR"
printf '[cuda]\nversion = "12.1"\n' >"$ESCDIR/cuda.toml"
(cd "$ESCDIR" && run_capture "$CUDAENV" current && no_raw_control "$OUT$ERR" "current in a folder named with ESC" &&
  assert_contains "$OUT" 'dir-\x1b[31mred\x1b]0;title\x07/cuda.toml' "current works in a folder named with ESC" &&
  run_capture "$CUDAENV" versions && no_raw_control "$OUT$ERR" "versions in a folder named with ESC")
(cd "$ESCDIR" && run_capture "$CUDAENV" use 11.0 && no_raw_control "$OUT$ERR" "use in a folder named with ESC")
printf '[cuda]\nversion = 12\n' >"$ESCDIR/cuda.toml"
(cd "$ESCDIR" && run_capture "$CUDAENV" current && no_raw_control "$OUT$ERR" "a type error in that folder's cuda.toml" &&
  assert_contains "$ERR" 'dir-\x1b[31mred\x1b]0;title\x07/cuda.toml' "the path is quoted escaped")

# The hook on `cd` in a real interactive bash: into the folder named with ESC (announcement),
# into the cuda.toml with ESC in its version (error) and back, with a broken cuda.toml there.
printf '[cuda]\nversion = "12.1"\n' >"$ESCDIR/cuda.toml"
mkdir -p "$ESCDIR/bad" "$WORK/esc-broken"
printf '[cuda]\nversion = 12\n' >"$ESCDIR/bad/cuda.toml"
printf '[cuda]\nversion = "12.1"\n\033[31mjunk\n' >"$WORK/esc-broken/cuda.toml"
{
  echo "PS1=''; PS2=''"
  echo "eval \"\$(\"$CUDAENV\" init bash)\""
  printf 'cd %q\n:\n' "$ESCDIR" "$ESCDIR/bad" "$WORK/esc-version" "$WORK/esc-broken" "$HOME" "$ESCDIR"
} >"$WORK/scenario"
interactive bash --norc --noprofile -i <"$WORK/scenario" >"$WORK/hook-out" 2>"$WORK/hook-err"
hook_err=$(cat "$WORK/hook-err")
no_raw_control "$hook_err$(cat "$WORK/hook-out")" "the bash hook across hostile folders"
assert_contains "$hook_err" 'dir-\x1b[31mred\x1b]0;title\x07/bad/cuda.toml' "the hook names the ESC folder's cuda.toml, escaped"
assert_contains "$hook_err" '\x1b]0;owned' "the hook reports the ESC version, escaped"
assert_contains "$hook_err" "esc-broken/cuda.toml" "the hook reports the broken cuda.toml"

# A mirror index whose release date holds ESC sequences.
A64=$(printf 'a%.0s' $(seq 64))
printf '{"releases":[{"label":"12.4.1","release_date":"\\u001b[2J2024","manifest":{"relative_path":"redistrib_12.4.1.json","sha256":"%s","size":1}}]}' \
  "$A64" >"$WORK/mirror/cudaenv-mirror.json"
run_capture "$CUDAENV" list-remote --mirror "file://$WORK/mirror/"
assert_eq 0 "$STATUS" "list-remote on an index with ESC in a release date"
no_raw_control "$OUT$ERR" "list-remote on an index with ESC in a release date"
assert_contains "$OUT" '12.4.1   \x1b[2J2024' "the date is shown escaped"

# `cudaenv shell` shows a CUDAENV_VERSION holding ESC escaped, in the shell and without it.
run_capture env CUDAENV_VERSION="${ESC}[31m" "$CUDAENV" shell
no_raw_control "$OUT$ERR" "cudaenv shell showing an ESC CUDAENV_VERSION"
assert_eq '\x1b[31m' "$OUT" "cudaenv shell shows it escaped"
assert_eq '\x1b[31m' "$(export CUDAENV_VERSION="${ESC}[31m"; eval "$("$CUDAENV" shell --shell-code=bash)")" "and so does the shell function's echo"

# A manifest whose component name holds ESC sequences and whose entry is damaged.
mkdir -p "$WORK/evil-mirror"
cat >"$WORK/evil-mirror/redistrib_11.8.0.json" <<'JSON'
{"release_label": "11.8.0", "cuda_nvcc": {"name": "x", "version": "1",
 "linux-x86_64": {"relative_path": "a.tar.xz", "sha256": "0000000000000000000000000000000000000000000000000000000000000000", "size": "1"}},
 "evil\u001b]0;owned\u0007\u001b[2J": {"name": "\u001b[31m", "version": "1",
 "linux-x86_64": {"relative_path": "b.tar.xz", "size": "1"}}}
JSON
run_capture "$CUDAENV" install 11.8.0 --skip-manifest-pin --mirror "file://$WORK/evil-mirror/"
assert_eq 1 "$STATUS" "install from a manifest with an ESC component name fails"
no_raw_control "$OUT$ERR" "install from a manifest with an ESC component name"
assert_contains "$ERR" 'evil\u001b]0;owned\u0007\u001b[2J"].linux-x86_64 has no' "the component is named, escaped"
finish

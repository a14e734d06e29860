# NO_COLOR takes the colour away and leaves the progress bars on a terminal (no-color.org);
# --no-progress and CUDAENV_NO_PROGRESS=1 turn the bars off, one plain line per event instead.
# Run in a real pseudo-terminal (script), whose raw output keeps every escape sequence.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
command -v script >/dev/null || skip "script is not installed (apt-get install bsdutils)"

add_fake_release 12.1.1
mkdir -p "$WORK/noise/share"
head -c 48k /dev/urandom >"$WORK/noise/share/noise.bin"
add_component 12.1.1 cuda_nvtx 12.1.1 "$WORK/noise" -z
write_manifest 12.1.1
start_mirror
# A slow archive, so the bars are redrawn (the cursor moves up over them) while it comes.
(cd "$MIRROR_ROOT" && for path in cuda_nvtx/linux-x86_64/*; do echo "/$path trickle"; done) >"$FAULTS"

# in_terminal ENV... -- ARGS...: `cudaenv install ARGS` in a pseudo-terminal with ENV; its raw
# output in $RAW. A driver too old for 12.1 gives a warning to colour.
in_terminal() {
  local env=()
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  rm -rf "$CUDAENV_ROOT/versions/12.1.1"
  RAW=$(env -u NO_COLOR "${env[@]}" CUDAENV_DRIVER_VERSION=470.82.01 script -qec \
    "'$CUDAENV' install 12.1.1 --mirror '$MIRROR_URL' --skip-manifest-pin --platform linux-x86_64 --component cuda_nvtx $*" \
    /dev/null)
  assert_contains "$RAW" "installed CUDA 12.1.1" "${env[*]} $*: the install succeeds"
}
has() { grep -qP "$1" <<<"$RAW"; }
colour='\x1b\[[0-9;]*m'
redraw='\x1b\[[0-9]+A'

in_terminal --
check "a terminal: the warning is coloured" has "$colour"
check "a terminal: bars are redrawn" has "$redraw"
in_terminal NO_COLOR=1 --
check "NO_COLOR: no colour" eval '! has "$colour"'
check "NO_COLOR: the bars stay" has "$redraw"
assert_contains "$RAW" "cuda_nvtx" "NO_COLOR: the bars name the component"
in_terminal NO_COLOR=1 -- --no-progress
check "--no-progress: no bars" eval '! has "$redraw"'
assert_contains "$RAW" "downloading cuda_nvtx" "--no-progress: one plain line per event"
check "--no-progress with NO_COLOR: no escape sequence at all" eval '! has "\x1b"'
in_terminal CUDAENV_NO_PROGRESS=1 --
check "CUDAENV_NO_PROGRESS=1: no bars" eval '! has "$redraw"'
assert_contains "$RAW" "downloading cuda_nvtx" "CUDAENV_NO_PROGRESS=1: plain lines"
check "CUDAENV_NO_PROGRESS=1 keeps the colour" has "$colour"
in_terminal CUDAENV_NO_PROGRESS=0 --
check "CUDAENV_NO_PROGRESS=0: bars" has "$redraw"

# `config` says where the setting came from; `mirror sync` takes the option too.
assert_contains "$(CUDAENV_NO_PROGRESS=1 "$CUDAENV" config 2>&1)" "no_progress" "config lists the setting"
assert_contains "$(CUDAENV_NO_PROGRESS=1 "$CUDAENV" config 2>&1 | grep no_progress)" "CUDAENV_NO_PROGRESS" "config names its origin"
run_capture "$CUDAENV" mirror sync 12.1.1 --to "$WORK/copy" --mirror "$MIRROR_URL" --skip-manifest-pin \
  --platform linux-x86_64 --no-progress
assert_eq 0 "$STATUS" "mirror sync takes --no-progress: $ERR"
finish

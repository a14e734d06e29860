#!/usr/bin/env bash
# `cudaenv torch --with`: one install command in which every extension fits the torch. A
# loopback stand-in of an air-gapped wheel mirror (CUDAENV_EXTENSION_WHEELS) holds the
# flash-attn wheel under flash-attn's own naming scheme: its URL is printed only when the server
# has it, else the source build under the toolkit of torch's CUDA. Offline (server down,
# silent) it never hangs, says what it could not reach and still prints the build; a broken
# extensions.toml or mirror setting is an error naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_torch.sh"

unset CUDAENV_TORCH_OFFLINE
add_torch_build cu130 2.15.0 0.29.2 2.11.1 13.0
start_index
export CUDAENV_TORCH_INDEX="$INDEX_URL"

PY_TAG=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
PLATFORM=$(python3 -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))')
WHEEL="flash_attn-2.8.3+cu13torch2.15cxx11abiTRUE-$PY_TAG-$PY_TAG-$PLATFORM.whl"
MIRROR_DIR="$WORK/mirror"
mkdir -p "$MIRROR_DIR"
printf 'PK\005\006%018d' 0 >"$MIRROR_DIR/$WHEEL"  # an empty zip: the server only has to have the file
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$MIRROR_DIR" >"$WORK/mirror.out" 2>"$WORK/mirror.log" &
MIRROR_PID=$!
trap 'kill "$MIRROR_PID" 2>/dev/null; stop_index; rm -rf "$WORK"' EXIT
wait_until 10 grep -q 'port [0-9]' "$WORK/mirror.out"
MIRROR="http://127.0.0.1:$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$WORK/mirror.out" | head -1)/wheels"
mkdir -p "$MIRROR_DIR/wheels" && mv "$MIRROR_DIR/$WHEEL" "$MIRROR_DIR/wheels/"
export CUDAENV_EXTENSION_WHEELS="$MIRROR"
TORCH="cudaenv torch --cuda 13.0 --torch 2.15.0 --driver 580.65.06"
PINS="torch==2.15.0+cu130 torchvision==0.29.2+cu130 torchaudio==2.11.1+cu130"
heads() { grep -c '"HEAD /wheels/' "$WORK/mirror.log"; }

# The mirror has the wheel: its exact URL joins torch's pins; PyPI stays reachable for its dependencies.
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn
assert_eq 0 "$STATUS" "wheel found: succeeds ($ERR)"
assert_eq "pip install $PINS $MIRROR/$WHEEL --extra-index-url $INDEX_URL/cu130" "$OUT" "wheel found: its URL in the one command"
assert_contains "$ERR" "the prebuilt flash-attn 2.8.3 wheel for torch 2.15 with CUDA 13 (cxx11abiTRUE, $PY_TAG, $PLATFORM)" "wheel found: says which"
assert_eq 1 "$(heads)" "the server was asked once"
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn --installer uv
assert_eq "uv pip install $PINS $MIRROR/$WHEEL --extra-index-url $INDEX_URL/cu130" "$OUT" "uv form, from the cache"
assert_eq 1 "$(heads)" "a cached answer: no second request"

# A release the mirror lacks: the source build, under the toolkit of torch's CUDA, with one line of why.
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn==2.8.2 --arch 8.0,9.0
assert_eq 0 "$STATUS" "no wheel: succeeds ($ERR)"
assert_contains "$ERR" "no flash-attn 2.8.2 wheel for torch 2.15 with CUDA 13" "no wheel: why"
case "$OUT" in
  "pip install $PINS --index-url $INDEX_URL/cu130 && cudaenv install 13.0 && cudaenv exec --cuda 13.0 -- env MAX_JOBS="[0-9]*" TORCH_CUDA_ARCH_LIST='8.0;9.0' FLASH_ATTENTION_FORCE_BUILD=TRUE pip install --no-build-isolation flash-attn==2.8.2")
    check "no wheel: the build command" true ;;
  *) check "no wheel: the build command, got: $OUT" false ;;
esac
assert_not_contains "$OUT" "$MIRROR" "no wheel: no URL printed"

# The build command runs as printed once the toolkit is there: exec --cuda gives it CUDA_HOME.
make_fake_toolkit "$WORK/tk/cuda-13.0" 13.0.2
"$CUDAENV" add "$WORK/tk/cuda-13.0" >/dev/null 2>&1
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn==2.8.2 --arch 9.0
build=${OUT#* && }
assert_eq "cudaenv exec --cuda 13.0 --" "${build%% env *}" "a toolkit of 13.0 is there: no install first"
prefix=${build% pip install *}
run_capture sh -c "${prefix/cudaenv/\"$CUDAENV\"} sh -c 'echo \$CUDA_HOME \$TORCH_CUDA_ARCH_LIST \$FLASH_ATTENTION_FORCE_BUILD'"
assert_eq "0 $WORK/tk/cuda-13.0 9.0 TRUE" "$STATUS $OUT" "the printed exec prefix runs with the toolkit and the variables"

# Packages on the PyTorch index join torch's index; unknown names are usage errors.
run_capture "$CUDAENV" ${TORCH#cudaenv } --with xformers
assert_eq "pip install $PINS xformers --index-url $INDEX_URL/cu130" "$OUT" "xformers from the cu130 index"
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-atn
assert_eq 2 "$STATUS" "unknown package: usage error"
assert_contains "$ERR" "did you mean flash-attn?" "unknown package: a suggestion"
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn --format requirements
assert_eq 2 "$STATUS" "--with has no requirements form"

# --json carries the answer per extension.
if command -v jq >/dev/null; then
  run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn --json
  assert_eq "wheel $MIRROR/$WHEEL" "$(jq -r '.extensions[0] | "\(.answer) \(.requirement)"' <<<"$OUT")" "--json: the answer"
fi

# Server down: the lookup fails fast, says what it could not reach, and still prints the build.
kill "$MIRROR_PID"; wait "$MIRROR_PID" 2>/dev/null
export CUDAENV_TEXT_TIMEOUT=5
start=$(date +%s)
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn --refresh
assert_eq 0 "$STATUS" "server down: succeeds ($ERR)"
assert_contains "$ERR" "could not reach $MIRROR/$WHEEL" "server down: names the URL"
assert_contains "$OUT" "FLASH_ATTENTION_FORCE_BUILD=TRUE pip install --no-build-isolation flash-attn==2.8.3" "server down: the build"
# A second run reuses the failure (an hour) instead of waiting again, and still says it.
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn
assert_contains "$ERR" "could not reach $MIRROR/$WHEEL" "server down, cached: still said"

# A server that takes the connection and never answers (what a blackholed route looks like from
# here): bounded by CUDAENV_TEXT_TIMEOUT, never a hang.
python3 -u -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64); print(s.getsockname()[1]); time.sleep(600)' >"$WORK/silent.out" &
SILENT_PID=$!
trap 'kill "$SILENT_PID" 2>/dev/null; stop_index; rm -rf "$WORK"' EXIT
wait_until 10 test -s "$WORK/silent.out"
SILENT="http://127.0.0.1:$(cat "$WORK/silent.out")/wheels"
export CUDAENV_EXTENSION_WHEELS="$SILENT" CUDAENV_TEXT_TIMEOUT=3
start=$(date +%s)
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn
took=$(($(date +%s) - start))
assert_eq 0 "$STATUS" "silent server: succeeds ($ERR)"
check "silent server: ends within the text deadline and a margin (took ${took}s)" test "$took" -le 20
assert_contains "$ERR" "could not reach $SILENT/$WHEEL" "silent server: names the URL"
assert_contains "$ERR" "CUDAENV_TEXT_TIMEOUT" "silent server: says which deadline ended it"
assert_contains "$OUT" "&& cudaenv" "silent server: the build"
kill "$SILENT_PID" 2>/dev/null
unset CUDAENV_TEXT_TIMEOUT

# --offline asks nothing and says so.
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn --offline
assert_contains "$ERR" "not asked (offline)" "--offline: says it did not ask"
assert_contains "$OUT" "pip install --no-build-isolation flash-attn==2.8.3" "--offline: the build"

# The mirror setting: shown by config, and checked.
export CUDAENV_EXTENSION_WHEELS="$MIRROR"
run_capture "$CUDAENV" config
assert_contains "$OUT" "(CUDAENV_EXTENSION_WHEELS) extension_wheels = $MIRROR" "config lists the mirror and its origin"
export CUDAENV_EXTENSION_WHEELS=ftp://example.invalid/w
run_capture "$CUDAENV" ${TORCH#cudaenv } --with flash-attn
assert_eq 2 "$STATUS" "a mirror that is no http(s) or file:// URL: usage error"
assert_contains "$ERR" "CUDAENV_EXTENSION_WHEELS=ftp://example.invalid/w is not an http(s) or file:// URL" "names the variable"
unset CUDAENV_EXTENSION_WHEELS

# A file:// mirror: a missing file is "no wheel", not "unreachable".
run_capture env CUDAENV_EXTENSION_WHEELS="file://$WORK/empty" "$CUDAENV" ${TORCH#cudaenv } --with mamba-ssm --refresh
assert_contains "$ERR" "no mamba-ssm 2.3.2.post1 wheel for torch 2.15 with CUDA 13" "file:// mirror without the file: no wheel"

# Hostile data: a broken extensions.toml is an error naming the file and line.
cp -r "$SRC/manifests" "$WORK/manifests"
printf '[[package]]\nname = "x"\nkind = "conda"\n' >>"$WORK/manifests/extensions.toml"
run_capture env CUDAENV_MANIFESTS_DIR="$WORK/manifests" "$CUDAENV" ${TORCH#cudaenv } --with flash-attn
assert_eq 1 "$STATUS" "broken extensions.toml: fails"
assert_contains "$ERR" "$WORK/manifests/extensions.toml:" "broken extensions.toml: names the file"
assert_contains "$ERR" "kind 'conda' is none of" "broken extensions.toml: says what"
printf '\000\377garbage' >"$WORK/manifests/extensions.toml"
run_capture env CUDAENV_MANIFESTS_DIR="$WORK/manifests" "$CUDAENV" ${TORCH#cudaenv } --with flash-attn
assert_contains "$ERR" "$WORK/manifests/extensions.toml" "binary extensions.toml: names the file"
assert_not_contains "$ERR" "internal error" "binary extensions.toml: no internal error"

finish

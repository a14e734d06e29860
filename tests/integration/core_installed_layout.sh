# `cmake --install` lays out a prefix where the installed cudaenv finds its shim
# (libexec/cudaenv) and its data (share/cudaenv/manifests) without the source tree.
. "$(dirname "$0")/lib.sh"

run_capture cmake --install "$BUILD" --prefix "$WORK/prefix"
assert_eq 0 "$STATUS" "cmake --install: $ERR"
check "cudaenv in bin/" test -x "$WORK/prefix/bin/cudaenv"
check "the shim in libexec/cudaenv/" test -x "$WORK/prefix/libexec/cudaenv/cudaenv-shim"
check "manifests in share/cudaenv/" test -d "$WORK/prefix/share/cudaenv/manifests"
check "cudaenv-fetch in libexec/cudaenv/" test -x "$WORK/prefix/libexec/cudaenv/cudaenv-fetch"
check "bin/ holds only cudaenv" test "$(ls "$WORK/prefix/bin")" = cudaenv
assert_eq "cudaenv-fetch cudaenv-shim" "$(ls "$WORK/prefix/libexec/cudaenv" | tr '\n' ' ' | sed 's/ $//')" \
  "libexec/cudaenv/ holds the network helper and the shim, nothing else"
check "cudaenv does not load libcurl or libarchive" \
  sh -c "ldd '$WORK/prefix/bin/cudaenv' && ! ldd '$WORK/prefix/bin/cudaenv' | grep -qE 'libcurl|libarchive'"
run_capture "$WORK/prefix/bin/cudaenv" list-remote 12.1
assert_eq 0 "$STATUS" "list-remote runs in the installed cudaenv-fetch: $ERR"
assert_contains "$OUT" "12.1.1" "cudaenv-fetch finds the shipped release list from libexec/"
run_capture "$WORK/prefix/bin/cudaenv" install --help
assert_contains "$OUT" "--mirror" "install --help is the real one"

make_fake_toolkit "$WORK/tk/cuda-12.4" 12.4.1
run_capture "$WORK/prefix/bin/cudaenv" add "$WORK/tk/cuda-12.4"
assert_eq 0 "$STATUS" "the installed cudaenv registers a toolkit: $ERR"
run_capture "$WORK/prefix/bin/cudaenv" versions --json
assert_eq 0 "$STATUS" "the installed cudaenv lists as JSON: $ERR"
assert_contains "$OUT" '"registered"' "the toolkit just registered"
check "its shims link the installed shim" test "$CUDAENV_ROOT/shims/nvcc" -ef "$WORK/prefix/libexec/cudaenv/cudaenv-shim"
check "and hand over to the installed cudaenv" test "$CUDAENV_ROOT/shims/.cudaenv" -ef "$WORK/prefix/bin/cudaenv"
assert_contains "$(CUDAENV_VERSION=12.4 "$CUDAENV_ROOT/shims/nvcc" --version)" "release 12.4" "the installed shim runs"
assert_eq "12.4.1 (set by CUDAENV_VERSION)" "$(CUDAENV_VERSION=12.4 "$WORK/prefix/bin/cudaenv" current)" "the installed cudaenv answers"
assert_contains "$("$WORK/prefix/bin/cudaenv" init bash)" "'$WORK/prefix/bin/cudaenv' hook-env --shell bash" \
  "the shell integration calls the installed cudaenv"
assert_contains "$(CUDAENV_VERSION=12.4 "$WORK/prefix/bin/cudaenv" hook-env --shell bash 2>/dev/null)" \
  "export CUDA_HOME='$WORK/tk/cuda-12.4'" "the installed hook-env runs"

finish

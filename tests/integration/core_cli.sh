# The CLI on fake toolkits: add, versions, use, global, current, which, prefix, env, exec.
. "$(dirname "$0")/lib.sh"

make_fake_toolkit "$WORK/tk/cuda-11.8" 11.8.0
make_fake_toolkit "$WORK/tk/cuda-12.1" 12.1.1
make_fake_toolkit "$WORK/tk/cuda-12.4" 12.4.1

# add: version from version.json, cuda.h, or nvcc's banner; refuses non-toolkits.
run_capture "$CUDAENV" add "$WORK/tk/cuda-11.8"
assert_eq 0 "$STATUS" "add 11.8"
assert_contains "$ERR" "registered CUDA 11.8.0 -> $WORK/tk/cuda-11.8" "add reports what it did"
rm "$WORK/tk/cuda-12.1/version.json"
run_capture "$CUDAENV" add "$WORK/tk/cuda-12.1/"
assert_contains "$ERR" "registered CUDA 12.1 -> $WORK/tk/cuda-12.1" "add falls back to cuda.h"
rm "$WORK/tk/cuda-12.4/version.json" "$WORK/tk/cuda-12.4/include/cuda.h"
run_capture "$CUDAENV" add "$WORK/tk/cuda-12.4"
assert_contains "$ERR" "registered CUDA 12.4 -> $WORK/tk/cuda-12.4" "add falls back to nvcc --version"
run_capture "$CUDAENV" add "$WORK/tk/cuda-12.4"
assert_eq 0 "$STATUS" "adding the same toolkit twice is fine"
assert_contains "$ERR" "already registered" "second add says so"
mkdir -p "$WORK/not-cuda/bin"
run_capture "$CUDAENV" add "$WORK/not-cuda"
assert_eq 1 "$STATUS" "add of a folder without nvcc fails"
assert_contains "$ERR" "cudaenv: error: $WORK/not-cuda is not a CUDA toolkit: it has no executable bin/nvcc" "add names the folder"
run_capture "$CUDAENV" add "$WORK/tk/cuda-11.8" --as 12.1
assert_eq 1 "$STATUS" "a taken name is refused"
assert_contains "$ERR" "--as NAME" "taken name: the fix is named"
run_capture "$CUDAENV" add
assert_eq 2 "$STATUS" "add without PATH or --scan is a usage error"
make_fake_toolkit "$WORK/scan/cuda-11.8" 11.8.0
mkdir -p "$WORK/scan/cuda-broken"
run_capture env CUDAENV_SCAN_DIRS="$WORK/scan" "$CUDAENV" add --scan --as x
assert_eq 2 "$STATUS" "--scan with --as is a usage error"
run_capture env CUDAENV_SCAN_DIRS="$WORK/scan" "$CUDAENV" add --scan
assert_eq 1 "$STATUS" "add --scan reports the toolkit it could not register"
assert_contains "$ERR" "CUDA 11.8.0 is already registered to $WORK/tk/cuda-11.8" "--scan found cuda-11.8; its name is taken"
assert_not_contains "$ERR" "cuda-broken" "--scan skips folders without nvcc"
run_capture env CUDAENV_SCAN_DIRS="$WORK/tk" "$CUDAENV" add --scan
assert_eq 0 "$STATUS" "add --scan of registered toolkits succeeds"
assert_eq 3 "$(printf '%s\n' "$ERR" | grep -c 'already registered ->')" "--scan found all three"

# versions: sorted numerically, --bare, --json
run_capture "$CUDAENV" versions --bare
assert_eq "$(printf '11.8.0\n12.1\n12.4')" "$OUT" "versions --bare"
run_capture "$CUDAENV" versions --json
check "versions --json is JSON" python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert [x["name"] for x in d if x["source"]!="system"]==["11.8.0","12.1","12.4"], d' "$OUT"

# use / current / prefix / which in a project and a subfolder
mkdir -p "$WORK/proj/src/deep"
cd "$WORK/proj"
run_capture "$CUDAENV" use 12
assert_eq 0 "$STATUS" "use 12"
assert_eq "$(printf '[cuda]\nversion = "12"')" "$(cat cuda.toml)" "use writes cuda.toml"
cd src/deep
run_capture "$CUDAENV" current
assert_eq "12.4 (set by $WORK/proj/cuda.toml)" "$OUT" "current in a subfolder"
run_capture "$CUDAENV" current --json
check "current --json" python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["name"]=="12.4" and d["request"]=="12" and d["origin_file"].endswith("/proj/cuda.toml"), d' "$OUT"
run_capture "$CUDAENV" prefix
assert_eq "$WORK/tk/cuda-12.4" "$OUT" "prefix of the active toolkit"
run_capture "$CUDAENV" prefix 11
assert_eq "$WORK/tk/cuda-11.8" "$OUT" "prefix of a named version"
run_capture "$CUDAENV" which nvcc
assert_eq "$WORK/tk/cuda-12.4/bin/nvcc" "$OUT" "which nvcc"
run_capture "$CUDAENV" versions
assert_contains "$OUT" "* 12.4 --> $WORK/tk/cuda-12.4 (set by $WORK/proj/cuda.toml)" "versions marks the active one"
rm "$WORK/tk/cuda-11.8/bin/ptxas"
run_capture "$CUDAENV" which ptxas
assert_eq 0 "$STATUS" "ptxas is in 12.4"
run_capture env CUDAENV_VERSION=11.8 "$CUDAENV" which ptxas
assert_eq 127 "$STATUS" "which of a missing program exits 127"
assert_contains "$ERR" "ptxas is not part of CUDA 11.8.0 (set by CUDAENV_VERSION)" "which names version and origin"
assert_contains "$ERR" "it is in: 12.1, 12.4" "which lists the versions that have it"

# use keeps comments and other tables; refuses versions that are not installed
cd "$WORK/proj"
printf '# our toolkit\n[cuda]\nversion = "12" # newest\narch = ["8.9"]\n\n[torch]\nversion = "2.1.2"\n' >cuda.toml
run_capture "$CUDAENV" use 11.8
assert_eq "$(printf '# our toolkit\n[cuda]\nversion = "11.8" # newest\narch = ["8.9"]\n\n[torch]\nversion = "2.1.2"')" "$(cat cuda.toml)" "use edits only the version"
run_capture "$CUDAENV" use 12.3
assert_eq 1 "$STATUS" "use of a missing version fails"
assert_contains "$ERR" "cudaenv: error: CUDA 12.3 is not installed" "use: names the version"
assert_contains "$ERR" "installed: 11.8.0, 12.1, 12.4" "use: lists installed"
assert_contains "$ERR" "nearest match: 12.4" "use: nearest"
assert_contains "$ERR" "cudaenv install 12.3" "use: install line"
assert_contains "$(cat cuda.toml)" 'version = "11.8"' "a failed use leaves cuda.toml alone"

# use --unset removes the pin: the other settings stay, or the file goes with nothing else in it
cp cuda.toml "$WORK/pinned.toml"
"$CUDAENV" global 12.1 2>/dev/null
run_capture "$CUDAENV" use --unset
assert_eq 0 "$STATUS" "use --unset: $ERR"
assert_eq "$(printf '# our toolkit\n[cuda]\narch = ["8.9"]\n\n[torch]\nversion = "2.1.2"')" "$(cat cuda.toml)" \
  "use --unset removes only the version line"
run_capture "$CUDAENV" current
assert_eq "12.1 (set by $CUDAENV_ROOT/version)" "$OUT" "then the global default applies"
run_capture "$CUDAENV" use --unset
assert_contains "$ERR" "pins no version" "a second --unset says there is nothing to unset"
printf '[cuda]\nversion = "12.4"\n' >cuda.toml
run_capture "$CUDAENV" use --unset
check "use --unset removes a file that held only the pin" test ! -e cuda.toml
run_capture "$CUDAENV" use 12.4 --unset
assert_eq 2 "$STATUS" "use VERSION --unset is a usage error"
"$CUDAENV" global --unset 2>/dev/null
cp "$WORK/pinned.toml" cuda.toml

# env and exec carry the toolkit environment and the project's arch
run_capture "$CUDAENV" env --shell bash
assert_contains "$OUT" "export CUDA_HOME='$WORK/tk/cuda-11.8';" "env bash"
assert_contains "$OUT" "export TORCH_CUDA_ARCH_LIST='8.9';" "env bash arch"
check "env output evaluates in bash" bash -c "eval \"\$1\"; [ \"\$CUDA_HOME\" = '$WORK/tk/cuda-11.8' ] && [ \"\$(command -v nvcc)\" = '$WORK/tk/cuda-11.8/bin/nvcc' ] && [ \"\$CUDAARCHS\" = 89 ]" _ "$OUT"
run_capture "$CUDAENV" env --shell fish
check "env output evaluates in fish" fish -c "eval (string join \\n -- \$argv); test \"\$CUDA_HOME\" = '$WORK/tk/cuda-11.8'; and test (command -v nvcc) = '$WORK/tk/cuda-11.8/bin/nvcc'; and contains /usr/bin \$PATH" "$OUT"
run_capture "$CUDAENV" env --shell json
check "env json" python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["CUDACXX"].endswith("cuda-11.8/bin/nvcc"), d' "$OUT"
run_capture "$CUDAENV" exec -- sh -c 'echo $CUDA_HOME'
assert_eq "$WORK/tk/cuda-11.8" "$OUT" "exec -- sh -c 'echo \$CUDA_HOME'"
run_capture "$CUDAENV" exec nvcc --version
assert_contains "$OUT" "release 11.8, V11.8.89" "exec finds the toolkit's nvcc first"
run_capture "$CUDAENV" exec -- sh -c 'exit 7'
assert_eq 7 "$STATUS" "exec keeps the exit status"
run_capture "$CUDAENV" exec -- no-such-program-here
assert_eq 127 "$STATUS" "exec of an unknown program is 127"

# global: show, set, unset; CUDAENV_VERSION beats the project
cd "$WORK"
run_capture "$CUDAENV" global
assert_eq system "$OUT" "global default is system"
run_capture "$CUDAENV" global 12.1
assert_eq "12.1" "$(cat "$CUDAENV_ROOT/version")" "global writes the file"
run_capture "$CUDAENV" current
assert_eq "12.1 (set by $CUDAENV_ROOT/version)" "$OUT" "global applies outside projects"
cd "$WORK/proj"
run_capture env CUDAENV_VERSION=12.4 "$CUDAENV" current
assert_eq "12.4 (set by CUDAENV_VERSION)" "$OUT" "CUDAENV_VERSION overrides cuda.toml"
run_capture "$CUDAENV" global --unset
check "global --unset removes the file" test ! -e "$CUDAENV_ROOT/version"

# cuda.toml errors name file:line:column; unknown keys warn
printf '[cuda]\nversion = 12.1\n' >cuda.toml
run_capture "$CUDAENV" current
assert_eq 1 "$STATUS" "broken cuda.toml fails"
assert_contains "$ERR" "cudaenv: error: $WORK/proj/cuda.toml:2:11: [cuda] version must be a string, not a number" "type error position"
assert_contains "$ERR" 'write it as a string: version = "12.1"' "type error fix"
printf '[cuda]\nversion = "12.1"\nvesion = "x"\n' >cuda.toml
run_capture "$CUDAENV" current
assert_eq 0 "$STATUS" "unknown key is not fatal"
assert_eq 1 "$(printf '%s\n' "$ERR" | grep -c "unknown key 'cuda.vesion'")" "unknown key warned once"

# usage errors and help
run_capture "$CUDAENV" verions
assert_eq 2 "$STATUS" "unknown command is a usage error"
assert_contains "$ERR" "did you mean \`cudaenv versions\`?" "typo suggestion"
for command in add use global current versions which prefix exec env rehash; do
  run_capture "$CUDAENV" "$command" --help
  assert_eq 0 "$STATUS" "$command --help"
  assert_contains "$OUT" "Usage" "$command --help prints usage"
done
run_capture "$CUDAENV" rehash --help
assert_contains "$OUT" "Runs by itself after add, install and uninstall." "a table entry's footer is shown in its --help"
run_capture "$CUDAENV" --version
assert_contains "$OUT" "cudaenv 0." "--version"
run_capture "$CUDAENV" use
assert_eq 2 "$STATUS" "use without a version is a usage error"

finish

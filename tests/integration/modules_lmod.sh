# `cudaenv module` with the real Lmod: load sets exactly the toolkit's environment, a second
# CUDA module never joins the first, unload restores what was there.
. "$(dirname "$0")/lib.sh"

LMOD_INIT=/usr/share/lmod/lmod/init/bash
[ -r "$LMOD_INIT" ] || skip "Lmod is not installed ($LMOD_INIT); apt-get install lmod"

make_fake_toolkit "$WORK/tk/cuda-12.1" 12.1.1
make_fake_toolkit "$WORK/tk/cuda-11.8" 11.8.0
"$CUDAENV" add "$WORK/tk/cuda-12.1" 2>/dev/null
"$CUDAENV" add "$WORK/tk/cuda-11.8" 2>/dev/null

run_capture "$CUDAENV" module --all --to "$WORK/lua"
assert_eq 0 "$STATUS" "module --all: $ERR"
assert_contains "$ERR" "wrote $WORK/lua/cuda/12.1.1.lua" "Lua modulefile for 12.1.1"
assert_contains "$ERR" "module use $WORK/lua" "the next step is named"
run_capture "$CUDAENV" module 11.8 --format tcl --to "$WORK/tcl"
check "Tcl modulefile for 11.8" test -f "$WORK/tcl/cuda/11.8.0"
run_capture "$CUDAENV" module 11.8 --format tcl
assert_eq "#%Module1.0" "$(printf '%s\n' "$OUT" | head -1)" "without --to it prints the modulefile"
run_capture "$CUDAENV" module 12.3
assert_eq 1 "$STATUS" "a version that is not installed"
assert_contains "$ERR" "CUDA 12.3 is not installed" "names it"
run_capture "$CUDAENV" module
assert_eq 2 "$STATUS" "neither VERSION nor --all is a usage error"

lmod() {  # lmod SCRIPT: runs SCRIPT in a bash that has Lmod's `module`
  env -u LOADEDMODULES -u _LMFILES_ -u MODULEPATH bash -c ". '$LMOD_INIT'; $1" 2>&1
}

before="PATH=$PATH LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
out=$(lmod "module use '$WORK/lua'; module load cuda/12.1.1 || exit 9
  nvcc --version | grep release
  echo \"CUDA_HOME=\$CUDA_HOME CUDACXX=\$CUDACXX\"
  echo \"LD=\$LD_LIBRARY_PATH\"
  module load cuda/11.8.0; echo \"after second load: \$(module -t list 2>&1 | grep -c '^cuda/') loaded, \$(nvcc --version | grep -o 'release [0-9.]*')\"
  module unload cuda
  echo \"restored: PATH=\$PATH LD_LIBRARY_PATH=\${LD_LIBRARY_PATH:-} CUDA_HOME=\${CUDA_HOME:-unset}\"")
assert_contains "$out" "release 12.1, V12.1.105" "module load cuda/12.1.1 switches nvcc"
assert_contains "$out" "CUDA_HOME=$WORK/tk/cuda-12.1 CUDACXX=$WORK/tk/cuda-12.1/bin/nvcc" "module sets CUDA_HOME and CUDACXX"
assert_contains "$out" "LD=$WORK/tk/cuda-12.1/lib64" "module sets LD_LIBRARY_PATH"
assert_contains "$out" "after second load: 1 loaded, release 11.8" "a second CUDA module replaces the first, never joins it"
assert_contains "$out" "restored: $before CUDA_HOME=unset" "unload restores the environment"

# Lmod's extended defaults: cuda/12.1 and cuda/12 load the newest matching modulefile.
out=$(lmod "module use '$WORK/lua'; module load cuda/12.1 && nvcc --version | grep release")
assert_contains "$out" "release 12.1" "module load cuda/12.1 finds cuda/12.1.1"

# Sites that turn off Lmod's same-name swap get the conflict as an error.
out=$(lmod "export LMOD_DISABLE_SAME_NAME_AUTOSWAP=yes; module use '$WORK/lua'; module load cuda/12.1.1
  module load cuda/11.8.0; echo \"status=\$? \$(nvcc --version | grep -o 'release [0-9.]*')\"")
assert_contains "$out" "status=1 release 12.1" "the second CUDA module is refused"

# Lmod also reads the Tcl format.
out=$(lmod "module use '$WORK/tcl'; module load cuda/11.8.0 && nvcc --version | grep release; echo \"CUDA_PATH=\$CUDA_PATH\"")
assert_contains "$out" "release 11.8, V11.8.89" "Tcl modulefile loads"
assert_contains "$out" "CUDA_PATH=$WORK/tk/cuda-11.8" "Tcl modulefile sets CUDA_PATH"

# Paths Lua and Tcl could misread: quotes, brackets, "]]" and "]==]", '$', spaces. Lmod
# loads them exactly; a path the Tcl format cannot quote is refused, not mangled.
odd="$WORK/tk/a \"q\" 'r' [b] ]] ]==] \$HOME x"
tcl_odd="$WORK/tk/t 'r' [b] ]] ]==] \$HOME x"
for dir in "$odd" "$tcl_odd"; do make_fake_toolkit "$dir" 12.4.1; done
"$CUDAENV" add "$odd" --as odd >/dev/null 2>&1 || fail "add the odd path"
"$CUDAENV" add "$tcl_odd" --as tclodd >/dev/null 2>&1 || fail "add the Tcl-odd path"
run_capture "$CUDAENV" module odd --to "$WORK/odd-lua"
assert_eq 0 "$STATUS" "Lua modulefile for the odd path: $ERR"
run_capture "$CUDAENV" module odd --format tcl --to "$WORK/odd-tcl"
assert_eq 1 "$STATUS" "the Tcl format refuses a path with '\"'"
assert_contains "$ERR" "cannot be written into a Tcl modulefile" "and says why"
check "no Tcl modulefile written" test ! -e "$WORK/odd-tcl/cuda/odd"
run_capture "$CUDAENV" module tclodd --format tcl --to "$WORK/odd-tcl"
assert_eq 0 "$STATUS" "Tcl modulefile for brackets, '\$' and spaces: $ERR"
for format in lua tcl; do
  name=odd
  want=$odd
  [ $format = tcl ] && name=tclodd want=$tcl_odd
  : >"$WORK/home.txt"
  out=$(lmod "module use '$WORK/odd-$format'; module load cuda/$name || exit 9
    printf '%s' \"\$CUDA_HOME\" >'$WORK/home.txt'; nvcc --version | grep release")
  assert_contains "$out" "release 12.4" "$format: Lmod loads the odd path's module and its nvcc runs"
  assert_eq "$want" "$(cat "$WORK/home.txt")" "$format: CUDA_HOME is the path, byte for byte"
done

finish

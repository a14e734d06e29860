# The shim at scale: 1000 toolkits, a 1 MB cuda.toml; their records stay small and are
# replayed without the CLI (with its link gone, they must still run).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_replay.sh"

make_fake_toolkit "$WORK/tk/cuda-12.1" 12.1.1
make_fake_toolkit "$WORK/tk/cuda-12.4" 12.4.1
printf '#!/bin/sh\necho "$TORCH_CUDA_ARCH_LIST $CUDAARCHS"\n' >"$WORK/tk/cuda-12.4/bin/arch-echo"
chmod +x "$WORK/tk/cuda-12.4/bin/arch-echo"
"$CUDAENV" add "$WORK/tk/cuda-12.1" 2>/dev/null
"$CUDAENV" add "$WORK/tk/cuda-12.4" 2>/dev/null
SHIMS="$CUDAENV_ROOT/shims"
(cd "$CUDAENV_ROOT/versions" && seq 1 998 | sed "s|.*|11.&.0/bin|" | xargs mkdir -p)
assert_eq 1000 "$("$CUDAENV" versions --bare | wc -l)" "1000 toolkits registered"

mkdir -p "$WORK/exact/a/b" "$WORK/prefix" "$WORK/big/sub"
printf '[cuda]\nversion = "12.1.1"\n' >"$WORK/exact/cuda.toml"
printf '[cuda]\nversion = "12"\narch = ["8.9", "9.0+PTX"]\n' >"$WORK/prefix/cuda.toml"
awk 'BEGIN { size = 0; print "# a generated project file\n[cuda]\nversion = \"12.1\"\n[env]"
             for (i = 1; size < 1000000; i++) { line = "VARIABLE_" i " = \"value " i "\""; print line; size += length(line) + 1 } }' \
  >"$WORK/big/cuda.toml"
check "the big cuda.toml is 1 MB, under the 1 MiB limit" test "$(stat -c %s "$WORK/big/cuda.toml")" -ge 1000000

probe() { (cd "$1" && "$SHIMS/nvcc" --cudaenv-probe); }
assert_eq "nvcc=$WORK/tk/cuda-12.1/bin/nvcc CUDA_HOME=$WORK/tk/cuda-12.1 LD_LIBRARY_PATH=$WORK/tk/cuda-12.1/lib64" \
  "$(probe "$WORK/exact/a/b")" "an exact name among 1000 toolkits"
assert_eq "nvcc=$WORK/tk/cuda-12.4/bin/nvcc CUDA_HOME=$WORK/tk/cuda-12.4 LD_LIBRARY_PATH=$WORK/tk/cuda-12.4/lib64" \
  "$(probe "$WORK/prefix")" "a prefix among 1000 toolkits: the newest match"
assert_eq "8.9;9.0+PTX 89;90" "$(cd "$WORK/prefix" && "$SHIMS/arch-echo")" "the arch list of cuda.toml reaches the program"
assert_contains "$(probe "$WORK/big/sub")" "nvcc=$WORK/tk/cuda-12.1/bin/nvcc" "a 1 MB cuda.toml"
assert_eq "12.1.1 (set by $WORK/big/cuda.toml)" "$(cd "$WORK/big/sub" && "$CUDAENV" current)" "the CLI agrees on it"

# Recorded, the same answers need no CLI: with its link gone they still run ...
sleep 0.05
for folder in "$WORK/exact/a/b" "$WORK/prefix" "$WORK/big/sub"; do probe "$folder" >/dev/null; done
assert_eq 3 "$(grep -l 'Pnvcc' "$CUDAENV_ROOT"/cache/shim/* | wc -l)" "a record per folder"
for record in "$CUDAENV_ROOT"/cache/shim/*; do
  check "$record rests on a few files, not on 1000 toolkits" test "$(grep -c '^W' "$record")" -lt 20
done
mv "$SHIMS/.cudaenv" "$WORK/cli-link"
assert_contains "$(probe "$WORK/exact/a/b")" "nvcc=$WORK/tk/cuda-12.1/bin/nvcc" "replayed: an exact name"
assert_contains "$(probe "$WORK/prefix")" "nvcc=$WORK/tk/cuda-12.4/bin/nvcc" "replayed: a prefix"
assert_contains "$(probe "$WORK/big/sub")" "nvcc=$WORK/tk/cuda-12.1/bin/nvcc" "replayed: a 1 MB cuda.toml"
# ... and what none recorded fails plainly, naming the fix.
run_capture env CUDAENV_VERSION=12.9 "$SHIMS/nvcc" --version
assert_eq 127 "$STATUS" "no CLI: 127"
assert_contains "$ERR" "cudaenv is missing beside $SHIMS/nvcc" "no CLI: said"
assert_contains "$ERR" "run \`cudaenv rehash\`" "no CLI: the fix"
"$CUDAENV" rehash 2>/dev/null
check "rehash links the CLI again" test "$SHIMS/.cudaenv" -ef "$BUILD/cudaenv"
run_capture env CUDAENV_VERSION=12.9 "$SHIMS/nvcc" --version
assert_contains "$ERR" "CUDA 12.9 is not installed (set by CUDAENV_VERSION)" "the CLI explains the miss"

finish

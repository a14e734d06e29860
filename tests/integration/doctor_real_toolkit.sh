# cudaenv doctor against the real CUDA 13.0 in /usr/local, registered with `cudaenv add`,
# on a machine without a driver (no fake libcuda on LD_LIBRARY_PATH).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"

REAL=/usr/local/cuda-13.0
[ -x "$REAL/bin/nvcc" ] || skip "$REAL/bin/nvcc is not installed"
no_driver
no_python_packages
# Skipped where a real driver is loaded: this run is about a machine without one.
[ -e /proc/driver/nvidia/version ] && skip "an NVIDIA driver is loaded here"

# cuda-facts.toml says what this nvcc says: its archs (compute_88 included) and its gcc bound.
facts_of_13_0() {  # facts_of_13_0 KEY: the 13.0 row's value, archs space separated
  python3 -c 'import sys, tomllib
row = tomllib.load(open(sys.argv[1], "rb"))["cuda"]["13.0"][sys.argv[2]]
print(" ".join(row) if isinstance(row, list) else row)' "$SRC/manifests/cuda-facts.toml" "$1"
}
NVCC_ARCHS=$("$REAL/bin/nvcc" --list-gpu-arch | sed -n 's/^compute_\([0-9]*\)\([0-9]\)$/\1.\2/p' | sort -V | tr '\n' ' ')
assert_eq "$NVCC_ARCHS" "$(facts_of_13_0 archs | tr ' ' '\n' | sort -V | tr '\n' ' ')" "facts: 13.0's archs are nvcc --list-gpu-arch's"
assert_contains "$NVCC_ARCHS" "8.8" "facts: nvcc 13.0 lists compute_88"
HOST_CONFIG=$(find "$REAL" -path '*crt/host_config.h' | head -n 1)
assert_eq "$(sed -n 's/^#if __GNUC__ > \([0-9]*\)$/\1/p' "$HOST_CONFIG" | head -n 1)" "$(facts_of_13_0 gcc_max)" "facts: 13.0's gcc bound is host_config.h's"

check "register the real toolkit" "$CUDAENV" add "$REAL"
NAME=$("$CUDAENV" versions --bare | head -n 1)
check "make it the default" "$CUDAENV" global "$NAME"
fake_gcc gcc 14.2.0
doctor
assert_eq 0 "$STATUS" "real 13.0: exit status (no error)"
assert_eq "13.0" "$(probe .probes.nvcc.version)" "real 13.0: nvcc's own banner read"
assert_eq "$REAL/bin/nvcc" "$(probe .probes.nvcc.resolved)" "real 13.0: the shim resolves to the real nvcc"
assert_eq "13.0" "$(probe .probes.toolkit.version | cut -d. -f1-2)" "real 13.0: toolkit version"
assert_eq warning "$(severity_of driver)" "real 13.0: missing driver is a warning"
assert_eq false "$(probe .probes.driver.loaded)" "real 13.0: driver not loaded"
assert_eq ok "$(severity_of host-compiler)" "real 13.0: accepts gcc 14"
# Its own stub libcuda is not a driver.
LD_LIBRARY_PATH="$REAL/lib64/stubs" doctor
case "$(probe .probes.driver.problem)" in
  *stub*|*"cannot be loaded"*) CHECKS=$((CHECKS + 1)) ;;
  *) fail "real 13.0 stubs: problem was [$(probe .probes.driver.problem)]" ;;
esac
# gcc 16 is past what 13.0 accepts.
fake_gcc gcc 16.1.0
doctor
assert_eq 1 "$STATUS" "real 13.0 + gcc 16: exit status"
assert_contains "$(explanation_of host-compiler)" "later than 15" "real 13.0 + gcc 16: limit"
# An arch 13.0 dropped.
fake_gcc gcc 14.2.0
TORCH_CUDA_ARCH_LIST="6.1;8.6" doctor
assert_eq error "$(severity_of arch-list)" "real 13.0: sm_61 was dropped"
assert_eq "export TORCH_CUDA_ARCH_LIST='8.6'" "$(fixes_of arch-list)" "real 13.0: fix"

finish

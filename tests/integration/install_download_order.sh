# The order archives are requested in: largest first, whatever --jobs, so that the archives whose
# decoding takes longest begin first and the small ones are what is left at the end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

for spec in libcublas:64 libcusparse:48 libcufft:32 cuda_cudart:16 cuda_nvrtc:8; do
  add_noise_component 99.0.0 "${spec%%:*}" "${spec##*:}"
done
start_mirror

# The components in the order their downloads started, from the install's own log: the mirror's
# request log may see two connections opened together in either order.
archives_requested() {
  grep -o '^downloading [a-z_]*' <<<"$ERR" | cut -d' ' -f2
}

install_in_order() {  # install_in_order JOBS
  rm -rf "$CUDAENV_ROOT/versions/99.0.0"
  : >"$REQUEST_LOG"
  install_from_mirror 99.0.0 --profile full --jobs "$1"
  assert_eq 0 "$STATUS" "install with --jobs $1: $ERR"
}

install_in_order 1
assert_eq "libcublas libcusparse libcufft cuda_cudart cuda_nvrtc" "$(archives_requested | xargs)" \
  "one job: largest first"

# The largest is slowed, so it holds its job while the others go through the second one, the
# largest of them first.
echo "/$(cd "$MIRROR_ROOT" && ls libcublas/linux-x86_64/*) trickle" >"$FAULTS"
install_in_order 2
assert_eq "libcublas libcusparse" "$(archives_requested | head -2 | sort | xargs)" \
  "two jobs: the two largest start together"
assert_eq "libcufft cuda_cudart cuda_nvrtc" "$(archives_requested | tail -n +3 | xargs)" \
  "two jobs: the rest follow, largest first, while the largest downloads"
assert_eq 5 "$(grep -c '\.tar\.gz range=-$' "$REQUEST_LOG")" "each archive requested once, whole"
check "every archive installed" cmp -s "$WORK/parts/99.0.0/libcublas/share/libcublas.bin" \
  "$CUDAENV_ROOT/versions/99.0.0/share/libcublas.bin"
finish

# An installed toolkit's receipt and version.json, edited into wrong JSON types, and a mirror
# serving a manifest with wrong types: clear errors or a fresh install, never an internal error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

add_fake_release 12.1.1
start_mirror
install_from_mirror 12.1.1
assert_eq 0 "$STATUS" "the fake 12.1.1 installs"
HOME_121="$CUDAENV_ROOT/versions/12.1.1"

for receipt in '{"profile": 5, "components": [{"name": "cuda_nvcc"}]}' '{"profile": "minimal", "components": {"name": 1}}' \
  '{"profile": "minimal", "components": [{"name": ["cuda_nvcc"]}]}' '[1]' '{"components": "x"}'; do
  printf '%s\n' "$receipt" >"$HOME_121/cudaenv-install.json"
  install_from_mirror 12.1.1 --component libcurand
  assert_not_contains "$ERR" "internal error" "install over the receipt $receipt"
  assert_not_contains "$ERR" "bug:" "install over the receipt $receipt (misused result)"
done

for version_json in '{"cuda": {"version": 12}}' '{"cuda": []}' '{"cuda": {"version": "\u001b[31m"}}' 'null'; do
  printf '%s\n' "$version_json" >"$HOME_121/version.json"
  run_capture "$CUDAENV" versions
  assert_eq 0 "$STATUS" "versions with version.json $version_json"
  assert_contains "$OUT" "12.1.1" "versions still lists 12.1.1 with version.json $version_json"
done

# A manifest whose entries have the wrong JSON types: the error names the URL and the entry.
printf '{"release_label": "12.1.1", "cuda_nvcc": {"name": "CUDA NVCC", "linux-x86_64": {"relative_path": "a", "sha256": "%s", "size": [1]}}}' \
  "$(printf 'a%.0s' $(seq 64))" >"$MIRROR_ROOT/redistrib_12.1.1.json"
run_capture "$CUDAENV" mirror sync 12.1.1 --to "$WORK/synced" --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64
assert_eq 1 "$STATUS" "mirror sync of a manifest with a list for a size fails"
assert_contains "$ERR" "redistrib_12.1.1.json: cuda_nvcc.linux-x86_64.size must be a whole number (it is array)" \
  "the error names the manifest and the entry"
assert_not_contains "$ERR" "internal error" "mirror sync of a manifest with wrong types"
finish

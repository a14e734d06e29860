#!/usr/bin/env bash
# `cudaenv torch` learns from the PyTorch index: a loopback stand-in holds torch 2.16.0 (newer
# than the shipped table) with cu130 and cu132 wheels and a torchvision paired through PEP 658
# metadata, and no torchaudio for it. The index is read once a day (requests counted in the
# server's log), unreadable or hostile pages fall back with one stderr line, and --json names
# where each fact came from.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_torch.sh"

command -v jq >/dev/null || skip "jq is needed to read --json"
unset CUDAENV_TORCH_OFFLINE
add_torch_build cu121 2.1.2 0.16.2 2.1.2 12.1
add_torch_build cu130 2.16.0 0.31.0 - 13.0
add_torch_build cu132 2.16.0 0.31.0 - 13.2
start_index
export CUDAENV_TORCH_INDEX="$INDEX_URL"
CACHE="$CUDAENV_ROOT/cache/torch-index.json"
PIN="pip install torch==2.16.0+cu132 torchvision==0.31.0+cu132 --index-url $INDEX_URL/cu132"

# A release the shipped table lacks is offered as soon as the index has it.
run_capture "$CUDAENV" torch --cuda 13.2 --driver 580.65.06
assert_eq 0 "$STATUS" "discovery: succeeds"
assert_eq "$PIN" "$OUT" "torch 2.16.0 from the index, torchvision paired through its metadata, no torchaudio"
assert_contains "$ERR" "torchaudio has no release for torch 2.16.0" "torchaudio left out, with a note"
assert_eq 1 "$(index_requests /torch/)" "cold refresh: one request for the torch page"
assert_eq 1 "$(index_requests /torchvision/)" "cold refresh: one for the torchvision page"
assert_eq 1 "$(index_requests /torchaudio/)" "cold refresh: one for the torchaudio page"
assert_eq 1 "$(grep -c '\.metadata' "$INDEX_LOG")" "cold refresh: the metadata of the one unpaired torchvision only"
check "the snapshot is cached" test -s "$CACHE"

# Warm: the cache answers, the index sees no request.
before=$(grep -c GET "$INDEX_LOG")
run_capture "$CUDAENV" torch --cuda 13.2 --driver 580.65.06 --json
assert_eq "$before" "$(grep -c GET "$INDEX_LOG")" "warm cache: no request"
assert_eq "2.16.0 cache cache (wheel metadata) CUDAENV_TORCH_INDEX" \
  "$(jq -r '[.torch, .origins.release, .origins.torchvision, .origins.index_url] | join(" ")' <<<"$OUT")" "--json origins from the cache"
assert_eq '["cu130","cu132"]' "$(jq -c .release_variants <<<"$OUT")" "the CUDA builds the index has"
assert_eq '["py3"] ["any"]' "$(jq -c .release_python_tags <<<"$OUT") $(jq -c .release_platforms <<<"$OUT")" "its wheels' Python tags and platforms"
run_capture "$CUDAENV" torch --cuda 12.1 --torch 2.1.2 --driver 580.65.06 --json
assert_eq "2.1.2+cu121 cache shipped table" \
  "$(jq -r '[.packages.torch, .origins.release, .origins.torchvision] | join(" ")' <<<"$OUT")" "a known release keeps the table's pairing"

# The TTL: a day-old snapshot is read again; --refresh reads it whatever its age.
python3 - "$CACHE" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["fetched_at"] -= 2 * 24 * 3600
json.dump(doc, open(sys.argv[1], "w"))
PY
run_capture "$CUDAENV" torch --cuda 13.2 --driver 580.65.06 --json
assert_eq 2 "$(index_requests /torch/)" "stale cache: read again"
assert_eq "index index (wheel metadata)" "$(jq -r '[.origins.release, .origins.torchvision] | join(" ")' <<<"$OUT")" "--json origins: read in this run"
run_capture "$CUDAENV" torch --cuda 13.2 --driver 580.65.06 --refresh
assert_eq 3 "$(index_requests /torch/)" "--refresh reads the index now"

# `cudaenv update` refreshes the PyTorch index beside the CUDA releases.
REDIST="$WORK/redist"
mkdir -p "$REDIST" && cp "$SRC/tests/fixtures/redist/cuda/redistrib_12.1.1.json" "$REDIST/"
run_capture "$CUDAENV" update --mirror "file://$REDIST/"
assert_eq 0 "$STATUS" "update: $ERR"
assert_eq 4 "$(index_requests /torch/)" "update reads the PyTorch index"
assert_contains "$OUT" "torch releases at $INDEX_URL; newest 2.16.0" "update says what the index holds"
run_capture env CUDAENV_TORCH_OFFLINE=1 "$CUDAENV" update --mirror "file://$REDIST/"
assert_eq 4 "$(index_requests /torch/)" "update with CUDAENV_TORCH_OFFLINE=1 leaves the index alone"
run_capture env CUDAENV_ROOT="$WORK/root-unreachable" CUDAENV_TORCH_INDEX=http://127.0.0.1:1/whl "$CUDAENV" update --mirror "file://$REDIST/"
assert_eq 1 "$STATUS" "update with an unreachable PyTorch index fails"
assert_contains "$ERR" "cannot read the PyTorch index" "naming it"
assert_contains "$ERR" "CUDAENV_TORCH_OFFLINE=1" "and how to skip it"

# Hostile pages: garbage, then a page over the size cap. No crash; the last good snapshot, said once.
head -c 65536 /dev/urandom >"$INDEX_ROOT/torch/index.html"
run_capture "$CUDAENV" torch --cuda 13.2 --driver 580.65.06 --refresh
assert_eq 0 "$STATUS" "garbage page: still an answer"
assert_eq "$PIN" "$OUT" "garbage page: the last snapshot"
assert_eq 1 "$(grep -c 'cannot read the PyTorch index' <<<"$ERR")" "garbage page: said once"
assert_contains "$ERR" "lists no torch wheels" "garbage page: why"
head -c $((33 * 1024 * 1024)) /dev/zero | tr '\0' 'a' >"$INDEX_ROOT/torch/index.html"
run_capture "$CUDAENV" torch --cuda 13.2 --driver 580.65.06 --refresh
assert_eq "$PIN" "$OUT" "oversized page: the last snapshot"
assert_contains "$ERR" "is larger than 32 MiB" "oversized page: the cap named"

# Offline with no snapshot: the shipped table, said once; within the hour no new attempt.
stop_index
rm -f "$CACHE"
run_capture "$CUDAENV" torch --cuda 13.2 --driver 580.65.06
assert_eq 0 "$STATUS" "offline: still an answer"
assert_eq "pip install torch==2.15.0+cu132 torchvision==0.29.2+cu132 torchaudio==2.11.1+cu132 --index-url $INDEX_URL/cu132" \
  "$OUT" "offline: the shipped table"
assert_eq 1 "$(grep -c 'cannot read the PyTorch index' <<<"$ERR")" "offline: said once"
assert_contains "$ERR" "using the shipped table" "offline: says what it uses"
run_capture "$CUDAENV" torch --cuda 13.2 --driver 580.65.06 --json
assert_eq "shipped table" "$(jq -r .origins.release <<<"$OUT")" "offline: --json origin"
run_capture "$CUDAENV" torch --cuda 13.2 --driver 580.65.06 --offline
assert_not_contains "$ERR" "cannot read" "--offline: no attempt, no note"
finish

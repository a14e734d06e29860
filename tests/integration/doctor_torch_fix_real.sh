#!/usr/bin/env bash
# doctor's torch-side fix is a command that really fixes: for the seed case (toolkit 11.8, torch
# 2.1.2+cu121 in a real venv, installed by the real pip from a loopback stand-in index) doctor
# prints `<venv>/bin/python -m pip install torch==2.1.2+cu118 …`; running that line makes the next
# doctor run green.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"
. "$(dirname "$0")/lib_torch.sh"

python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 with venv and ensurepip is needed"
command -v jq >/dev/null || skip "jq is needed to read doctor --json"
add_torch_build cu121 2.1.2 0.16.2 2.1.2 12.1
add_torch_build cu118 2.1.2 0.16.2 2.1.2 11.8
start_index
export CUDAENV_TORCH_INDEX="$INDEX_URL"
VENV="$WORK/venv"
check "make a venv" make_venv "$VENV"
"$VENV/bin/pip" install -q torch==2.1.2+cu121 torchvision==0.16.2+cu121 --index-url "$INDEX_URL/cu121" >"$WORK/pip.log" 2>&1 ||
  cat "$WORK/pip.log" >&2
assert_eq "2.1.2+cu121 12.1" "$(torch_build "$VENV")" "the venv holds the cu121 build"

fake_gcc gcc 11.4.0
install_toolkit 11.8
"$CUDAENV" global 11.8 >/dev/null 2>&1
use_driver 12040 550.54.14 "NVIDIA GeForce RTX 4090:8.9"
PYTHON="$VENV/bin/python"
doctor
assert_eq 1 "$STATUS" "seed: doctor fails"
assert_eq error "$(severity_of toolkit-torch)" "seed: toolkit 11.8 vs torch cu121"
FIX=$(fixes_of toolkit-torch | sed -n 2p)
assert_eq "$VENV/bin/python -m pip install torch==2.1.2+cu118 torchvision==0.16.2+cu118 torchaudio==2.1.2+cu118 --index-url $INDEX_URL/cu118" \
  "$FIX" "the torch-side fix is the pip command for the probed interpreter and CUDAENV_TORCH_INDEX"

sh -c "$FIX" >"$WORK/fix.log" 2>&1 || cat "$WORK/fix.log" >&2
assert_eq "2.1.2+cu118 11.8" "$(torch_build "$VENV")" "the printed fix installed the cu118 build"
doctor
assert_eq ok "$(severity_of toolkit-torch)" "after the fix: toolkit and torch agree"
assert_eq 0 "$STATUS" "after the fix: doctor exits 0"
finish

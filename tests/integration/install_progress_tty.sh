# Progress bars in a real terminal (tmux) at 80x24 and 200x50, resized while they draw: every
# row fits the width (none wraps), no fragment of an old row is left on screen, and each
# version of a two-version install keeps its own titled bars.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
command -v tmux >/dev/null || skip "tmux is not installed (apt-get install tmux)"

for label in 12.1.1 11.8.0; do
  add_fake_release "$label"
  # Incompressible, and named per release (the archive path holds the version).
  mkdir -p "$WORK/noise/$label/share"
  head -c 48k /dev/urandom >"$WORK/noise/$label/share/noise.bin"
  add_component "$label" cuda_nvtx "$label" "$WORK/noise/$label" -z
  write_manifest "$label"
done
start_mirror
# Slow archives, so the bars are redrawn many times (and across the resize).
(cd "$MIRROR_ROOT" && for path in cuda_nvtx/linux-x86_64/*; do echo "/$path trickle"; done) >"$FAULTS"
SOCKET="$WORK/tmux.sock"
trap 'tmux -S "$SOCKET" kill-server 2>/dev/null; stop_mirror; rm -rf "$WORK"' EXIT

# The lines a finished screen may hold: bars (a component or a title, then the bar), the
# install's notes and the end marker.
bar='^(cuda_[a-z]+|CUDA 1[12]\.[0-9.]+) +\['
allowed="$bar|^(installed CUDA |fetching http|DONE rc=|\$)"

run_in_tmux() {  # run_in_tmux WIDTH HEIGHT RESIZED_WIDTH
  local width=$1 height=$2 resized=$3 screen i
  rm -rf "$CUDAENV_ROOT/versions/12.1.1" "$CUDAENV_ROOT/versions/11.8.0"
  tmux -S "$SOCKET" new-session -d -x "$width" -y "$height" \
    "env -u NO_COLOR HOME='$HOME' CUDAENV_ROOT='$CUDAENV_ROOT' '$CUDAENV' install 12.1.1 11.8.0 --mirror '$MIRROR_URL' \
       --skip-manifest-pin --platform linux-x86_64 --component cuda_nvtx --jobs 2; echo DONE rc=\$?; sleep 600"
  tmux -S "$SOCKET" set-option -g window-size manual >/dev/null 2>&1
  sleep 1
  tmux -S "$SOCKET" resize-window -x "$resized" -y "$height" 2>/dev/null
  for i in $(seq 600); do
    screen=$(tmux -S "$SOCKET" capture-pane -p -J)
    case "$screen" in *"DONE rc="*) break ;; esac
    sleep 0.1
  done
  tmux -S "$SOCKET" kill-server 2>/dev/null
  assert_contains "$screen" "DONE rc=0" "${width}x$height: the install succeeds"
  assert_contains "$screen" "CUDA 12.1.1 [" "${width}x$height: the first version keeps its bars"
  assert_contains "$screen" "CUDA 11.8.0 [" "${width}x$height: the second version has its own"
  assert_contains "$screen" "cuda_nvtx" "${width}x$height: the slow archive has its row"
  local line too_long="" fragments=""
  while IFS= read -r line; do
    line=${line%"${line##*[! ]}"}
    # Notes are plain lines the terminal may wrap; the bars never.
    if printf '%s\n' "$line" | grep -Eq "$bar"; then [ "${#line}" -lt "$resized" ] || too_long+="[$line]"; fi
    printf '%s\n' "$line" | grep -Eq "$allowed" || fragments+="[$line]"
  done <<<"$screen"
  assert_eq "" "$too_long" "${width}x$height resized to $resized: every row fits (none wrapped)"
  assert_eq "" "$fragments" "${width}x$height resized to $resized: no fragments of old rows"
}

run_in_tmux 80 24 70
run_in_tmux 200 50 120
finish

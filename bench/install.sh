#!/usr/bin/env bash
# bench/install.sh [BUILD_DIR]: `cudaenv install` from a loopback mirror whose transfers share one
# throttled link (build/tests/test_mirror --rate), against the floors of the same work done by
# plain tools.
#
# Sets (SETS, default "cuda13 torch pypi"), built once into BUILD_DIR/bench-fixtures by
# bench/install_fixture.py from the real CUDA 13.0 (CUDA, default /usr/local/cuda-13.0):
#   cuda13  ~280 MB of .tar.xz (ten components, each real file once, `xz -6`), installed with
#           --profile full at each rate of RATES (MB/s, default "20 40 100"). The floor is the
#           larger of two: downloading the archives alone (curl, 4 at a time, to files, over the
#           same link) and decoding them alone (`xz -dc`, one per core, largest first). Goal <= 1.05.
#           Beside them, not a floor of the goal: `bsdtar -xf` one per core, decoding and writing
#           the files in one process with the libraries the install uses (libarchive, liblzma), the
#           least CPU an install can spend; and `tar -xJf` one per core (GNU tar piping from xz),
#           issue 37's floor at 100 MB/s. 20 MB/s is a link slower than two cores
#           decode, so the link alone limits the install there.
#   torch   the torch profile sized like NVIDIA's 13.0.0 archives (~2 GB, `xz -1`), at 40 MB/s: the
#           install against downloading alone.
#   pypi    the same files as wheels from a loopback PEP 691 index, `--source pypi --profile
#           torch`, at 40 MB/s: the install against downloading its wheels alone.
#   profile where the CPU goes: one cuda13 install at each rate of RATES, then the xz -dc floor,
#           each under `perf record` (perf, from linux-perf): the share of liblzma, of copying
#           (memmove), of sha256 and of the kernel, and the kernel's share by system call (write:
#           the files; pwrite64 and pread64: the .part files; recvfrom: the network; unlink: the
#           downloads removed after the commit).
#           Figures under perf are slower; compare shares, not seconds.
#   uv      opt-in (PyPI, 1.3 GB once): the torch profile of CUDA UV_LABEL (default 13.2) from NVIDIA's
#           real wheels (15 of them), against `uv pip install --no-deps --target DIR` of the same
#           wheels, both from one loopback PEP 503 index at each rate of UV_RATES (MB/s; default
#           "0 100", 0: unthrottled), each with a cold cache. uv comes from PyPI into
#           E2E_CACHE/uv (`pip install --target E2E_CACHE/uv uv==0.13.9`, UV to use another); the
#           wheels are fetched once from PyPI with `cudaenv install --keep-downloads` into
#           E2E_CACHE/cudaenv-cache (E2E_CACHE: CUDAENV_E2E_CACHE, default /var/cache/cudaenv-e2e).
#           ROUNDS interleaved rounds, the order alternating; per round cudaenv / uv. UV_PROFILE=1
#           adds one unthrottled install of CUDAENV (and BEFORE) under perf record, as SETS=profile;
#           UV_SYSCALLS=1 one of CUDAENV, BEFORE and uv each under `strace -c -f`: their system
#           calls, the most frequent first.
#   resume  what resuming costs: cuda13 at 40 MB/s, the install killed (kill -9) when half of the
#           download time has passed, then run again: it resumes each cut archive with a Range
#           request and unpacks the bytes already on disk again while the rest arrives. Its time
#           against downloading the bytes it fetched alone, and its CPU time against a whole install's.
# Each round runs the install and its floors one after the other, the install first in even
# rounds and last in odd ones (ROUNDS, default 5; TORCH_ROUNDS, default 3), so that a drift in
# the machine's speed favours neither. Printed: each round, then medians, the spread of the
# per-round ratios, and the install's peak RSS (/usr/bin/time; goal <= 64 MiB).
# CUDAENV (default BUILD_DIR/cudaenv) is the cudaenv measured. BEFORE, another build's cudaenv,
# is measured in the same rounds (beside CUDAENV, in alternating order), for a before/after
# comparison under the same load, mirror and floors.
# XZ_UTILS, a prefix where another xz-utils is installed (bin/xz, lib/liblzma.so.5; e.g. Debian's
# source package of a newer release, `./configure --prefix=P && make install`), puts its liblzma
# under every program measured (LD_LIBRARY_PATH) and its xz in the floor: how much of the ratio is
# liblzma's speed. The installs write into a folder under TMPDIR (default /tmp).
set -euo pipefail

BUILD=$(cd "${1:-${CUDAENV_BUILD_DIR:-build}}" && pwd)
CUDAENV=${CUDAENV:-$BUILD/cudaenv}
BEFORE=${BEFORE:-}
MIRROR_BIN="$BUILD/tests/test_mirror"
ROUNDS=${ROUNDS:-5}
TORCH_ROUNDS=${TORCH_ROUNDS:-3}
RATES=${RATES:-20 40 100}
SETS=${SETS:-cuda13 torch pypi}
FIXTURES="$BUILD/bench-fixtures"
HERE=$(cd "$(dirname "$0")" && pwd)
for tool in "$CUDAENV" "$MIRROR_BIN"; do
  [ -x "$tool" ] || { echo "bench/install: $tool is missing; build first (ninja -C $BUILD)" >&2; exit 1; }
done
for tool in /usr/bin/time xz bsdtar curl python3; do
  command -v "$tool" >/dev/null ||
    { echo "bench/install: $tool is needed (apt-get install time xz-utils libarchive-tools curl python3)" >&2; exit 1; }
done
XZ=xz
if [ -n "${XZ_UTILS:-}" ]; then
  XZ_UTILS=$(cd "$XZ_UTILS" && pwd)
  [ -x "$XZ_UTILS/bin/xz" ] && [ -e "$XZ_UTILS/lib/liblzma.so.5" ] ||
    { echo "bench/install: XZ_UTILS=$XZ_UTILS holds no bin/xz and lib/liblzma.so.5" >&2; exit 1; }
  XZ=$XZ_UTILS/bin/xz
  export LD_LIBRARY_PATH="$XZ_UTILS/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

fixture() {  # KIND DIR LABEL SET: built once
  [ -e "$FIXTURES/$2/complete" ] && return
  echo "bench/install: building $FIXTURES/$2 from ${CUDA:-/usr/local/cuda-13.0} (once; minutes)..." >&2
  rm -rf "${FIXTURES:?}/$2"
  python3 "$HERE/install_fixture.py" "$1" "$FIXTURES/$2" "$3" "$4"
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cudaenv-bench.XXXXXX")
MIRROR_PID=
trap '[ -z "$MIRROR_PID" ] || kill $MIRROR_PID 2>/dev/null; rm -rf "$WORK"' EXIT

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { printf '%s\n' "$@" | sort -g | head -1; }
maximum() { printf '%s\n' "$@" | sort -g | tail -1; }
ratio() { echo "scale=4; $1 / $2" | bc -l; }
larger() { echo "if ($1 > $2) $1 else $2" | bc -l; }

start_mirror() {  # ROOT MB_PER_S: serve ROOT over one link of that speed; sets URL
  [ -z "$MIRROR_PID" ] || kill "$MIRROR_PID" 2>/dev/null
  rm -f "$WORK/port"
  "$MIRROR_BIN" --root "$1" --rate "$(($2 * 1000000))" >"$WORK/port" &
  MIRROR_PID=$!
  for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
  URL="http://127.0.0.1:$(cat "$WORK/port")/"
}

# Runs a command, its output thrown away; prints "WALL PEAK_RSS_KB CPU SYSTEM": seconds, kB,
# seconds of user and system time, and of system time alone (its children's included). UNDER, an array, is a command it runs under
# (perf record, for SETS=profile).
UNDER=()
timed() {
  /usr/bin/time -f '%e %M %U %S' -o "$WORK/time.txt" "${UNDER[@]}" "$@" >/dev/null 2>"$WORK/stderr" || {
    echo "bench/install: failed: $*" >&2
    cat "$WORK/stderr" >&2
    exit 1
  }
  awk '{ printf "%s %s %.2f %.2f\n", $1, $2, $3 + $4, $4 }' "$WORK/time.txt"
}

# The archives of a fixture, largest first.
archives_of() { find "$1" -name "*.$2" -printf '%s %p\n' | sort -rn | cut -d' ' -f2; }

download_floor() {  # ROOT EXT: every file curl'ed, 4 at a time, to files on this disk
  rm -rf "$WORK/download" && mkdir -p "$WORK/download"
  archives_of "$1" "$2" | sed "s|^$1/||" | while read -r relative; do
    printf '%s\n%s\n' "$URL$relative" "$WORK/download/${relative//\//_}"
  done >"$WORK/download.list"
  timed xargs -P4 -n2 sh -c 'curl -sSf -o "$1" "$0"' <"$WORK/download.list"
  rm -rf "$WORK/download"
}

decode_floor() {  # ROOT: xz -dc of every archive, one per core, largest first
  archives_of "$1" tar.xz | timed xargs -P"$(nproc)" -n1 "$XZ" -dc
}

# The same decoding plus what an install cannot skip, writing the files: bsdtar -xf of every
# archive into a folder of its own, one per core, largest first. bsdtar decodes in its own process
# with libarchive and liblzma, as the install does (tar -xJf pipes from an xz process, which costs
# more). Not one of the goal's floors: it shows what the install costs beyond plain tools when the
# CPU, not the link, is what limits it.
unpack_floor() {  # ROOT [TAR]: TAR -xf of each archive (default bsdtar; "tar -xJ": GNU tar piping from xz)
  local tar=${2:-bsdtar}
  rm -rf "$WORK/unpack" && mkdir -p "$WORK/unpack"
  archives_of "$1" tar.xz |
    timed xargs -P"$(nproc)" -I{} sh -c 'folder=$(mktemp -d "$0/a.XXXXXX") && $1 -xf "$2" -C "$folder"' "$WORK/unpack" "$tar" {}
  rm -rf "$WORK/unpack"
}

install() {  # CUDAENV ARGS...: a fresh install into an empty root (and cache)
  local cudaenv=$1
  shift
  rm -rf "$WORK/root"
  CUDAENV_ROOT="$WORK/root" NO_COLOR=1 timed "$cudaenv" install "$@" --platform linux-x86_64
}

# The installs of a round, in the round's order: CUDAENV, and BEFORE where set. Sets c rss c_cpu
# (and b b_rss b_cpu).
installs_of_round() {  # ROUND INSTALL_ARGS...
  local round=$1
  shift
  if [ -n "$BEFORE" ] && [ $((round % 2)) -eq 0 ]; then read -r b b_rss b_cpu _ <<<"$(install "$BEFORE" "$@")"; fi
  read -r c rss c_cpu _ <<<"$(install "$CUDAENV" "$@")"
  if [ -n "$BEFORE" ] && [ $((round % 2)) -eq 1 ]; then read -r b b_rss b_cpu _ <<<"$(install "$BEFORE" "$@")"; fi
}

report() {  # WHAT ratios...: "median (spread min-max)"
  local what=$1
  shift
  printf '  %s: %.3f (rounds %.3f-%.3f)\n' "$what" "$(median "$@")" "$(minimum "$@")" "$(maximum "$@")"
}

# One set: the install and its floors, ROUNDS interleaved rounds. FLOORS names which floors
# count: "download decode" or "download"; "unpack" adds unpack_floor, reported beside them.
measure() {  # NAME ROOT EXT ROUNDS FLOORS INSTALL_ARGS...
  local name=$1 root=$2 ext=$3 rounds=$4 floors=$5
  shift 5
  local installs=() downloads=() decodes=() ratios=() cpu_installs=() cpu_decodes=() cpu_ratios=() peak=0
  local unpacks=() cpu_unpacks=() unpack_ratios=() u u_cpu t t_cpu tars=() cpu_tars=() tar_ratios=()
  local befores=() before_ratios=() cpu_befores=() before_peak=0
  local d x c rss c_cpu x_cpu b=0 b_rss=0 b_cpu=0 floor round
  cat $(archives_of "$root" "$ext") >/dev/null  # in the page cache, for every side alike
  for round in $(seq "$rounds"); do
    d=0 x=0 x_cpu=0 u=0 u_cpu=0 t=0 t_cpu=0
    [ $((round % 2)) -eq 0 ] && installs_of_round "$round" "$@"
    read -r d _ <<<"$(download_floor "$root" "$ext")"
    case " $floors " in *" decode "*) read -r x _ x_cpu _ <<<"$(decode_floor "$root")" ;; esac
    case " $floors " in *" unpack "*) read -r u _ u_cpu _ <<<"$(unpack_floor "$root")" ;; esac
    case " $floors " in *" tar "*) read -r t _ t_cpu _ <<<"$(unpack_floor "$root" "tar -xJ")" ;; esac
    [ $((round % 2)) -eq 1 ] && installs_of_round "$round" "$@"
    floor=$(larger "$d" "$x")
    installs+=("$c") downloads+=("$d") decodes+=("$x") ratios+=("$(ratio "$c" "$floor")")
    cpu_installs+=("$c_cpu") cpu_decodes+=("$x_cpu")
    [ "$x_cpu" = 0 ] || cpu_ratios+=("$(ratio "$c_cpu" "$x_cpu")")
    [ "$u" = 0 ] || { unpacks+=("$u") cpu_unpacks+=("$u_cpu") unpack_ratios+=("$(ratio "$c" "$u")"); }
    [ "$t" = 0 ] || { tars+=("$t") cpu_tars+=("$t_cpu") tar_ratios+=("$(ratio "$c" "$t")"); }
    [ "$rss" -gt "$peak" ] && peak=$rss
    printf '  %s round %d: download alone %.2f s, xz -dc %.2f s (CPU %.2f s), cudaenv install %.2f s (CPU %.2f s, peak RSS %.1f MiB): %.3f x the floor\n' \
      "$name" "$round" "$d" "$x" "$x_cpu" "$c" "$c_cpu" "$(echo "$rss / 1024" | bc -l)" "${ratios[-1]}"
    [ "$u" = 0 ] || printf '    bsdtar -xf, one per core: %.2f s (CPU %.2f s)\n' "$u" "$u_cpu"
    [ "$t" = 0 ] || printf '    tar -xJf, one per core: %.2f s (CPU %.2f s)\n' "$t" "$t_cpu"
    if [ -n "$BEFORE" ]; then
      befores+=("$b") cpu_befores+=("$b_cpu") before_ratios+=("$(ratio "$b" "$floor")")
      [ "$b_rss" -gt "$before_peak" ] && before_peak=$b_rss
      printf '    before: %.2f s (CPU %.2f s, peak RSS %.1f MiB): %.3f x the floor\n' "$b" "$b_cpu" "$(echo "$b_rss / 1024" | bc -l)" \
        "${before_ratios[-1]}"
    fi
  done
  printf '%s: %d files, %.1f MB, %d rounds (medians)\n' "$name" "$(archives_of "$root" "$ext" | wc -l)" \
    "$(echo "$(du -cb $(archives_of "$root" "$ext") | tail -1 | cut -f1) / 1000000" | bc -l)" "$rounds"
  printf '  download alone (curl, 4 at a time): %.2f s (rounds %.2f-%.2f)\n' "$(median "${downloads[@]}")" \
    "$(minimum "${downloads[@]}")" "$(maximum "${downloads[@]}")"
  case " $floors " in *" decode "*)
    printf '  xz -dc, one per core (%d): %.2f s (rounds %.2f-%.2f), CPU %.2f s\n' "$(nproc)" "$(median "${decodes[@]}")" \
      "$(minimum "${decodes[@]}")" "$(maximum "${decodes[@]}")" "$(median "${cpu_decodes[@]}")" ;;
  esac
  case " $floors " in *" unpack "*)
    printf '  bsdtar -xf, one per core (%d): %.2f s (rounds %.2f-%.2f), CPU %.2f s\n' "$(nproc)" "$(median "${unpacks[@]}")" \
      "$(minimum "${unpacks[@]}")" "$(maximum "${unpacks[@]}")" "$(median "${cpu_unpacks[@]}")" ;;
  esac
  case " $floors " in *" tar "*)
    printf '  tar -xJf, one per core (%d): %.2f s (rounds %.2f-%.2f), CPU %.2f s\n' "$(nproc)" "$(median "${tars[@]}")" \
      "$(minimum "${tars[@]}")" "$(maximum "${tars[@]}")" "$(median "${cpu_tars[@]}")" ;;
  esac
  printf '  cudaenv install: %.2f s (rounds %.2f-%.2f), CPU %.2f s\n' "$(median "${installs[@]}")" "$(minimum "${installs[@]}")" \
    "$(maximum "${installs[@]}")" "$(median "${cpu_installs[@]}")"
  report "ratio install / floor (the larger of the floors, per round; goal <= 1.05)" "${ratios[@]}"
  # On a machine others load, CPU time is what their load moves least: it says what the
  # install costs beyond decoding (download, sha256, writing the files).
  [ ${#cpu_ratios[@]} -eq 0 ] || report "CPU time install / xz -dc" "${cpu_ratios[@]}"
  [ ${#unpack_ratios[@]} -eq 0 ] || report "ratio install / bsdtar -xf, one per core (not a goal)" "${unpack_ratios[@]}"
  [ ${#tar_ratios[@]} -eq 0 ] || report "ratio install / tar -xJf, one per core (issue 37: goal <= 1.05 at 100 MB/s)" "${tar_ratios[@]}"
  printf '  cudaenv peak RSS: %.1f MiB (goal <= 64 MiB)\n' "$(echo "$peak / 1024" | bc -l)"
  if [ -n "$BEFORE" ]; then
    printf '  before (%s): %.2f s (rounds %.2f-%.2f), CPU %.2f s, peak RSS %.1f MiB\n' "$BEFORE" "$(median "${befores[@]}")" \
      "$(minimum "${befores[@]}")" "$(maximum "${befores[@]}")" "$(median "${cpu_befores[@]}")" "$(echo "$before_peak / 1024" | bc -l)"
    report "before: ratio install / floor" "${before_ratios[@]}"
  fi
}

# Where the CPU of a `perf record` went: by library, the top symbols (liblzma has none), the kernel
# by system call (write: the files; pwrite64 and pread64: the .part files; recvfrom: the network;
# unlink: the downloads removed after the commit).
perf_shares() {  # TITLE PERF_DATA
  printf '%s: the CPU samples by library, the top symbols, the kernel by system call\n' "$1"
  perf report -i "$2" --no-children --sort dso --stdio -g none --percent-limit 0.1 2>/dev/null | grep '%' | sed 's/^/  /'
  perf report -i "$2" --no-children --sort dso,sym --stdio -g none --percent-limit 0.8 2>/dev/null |
    grep '%' | grep -v liblzma | sed 's/^/  /'
  perf report -i "$2" --children --sort sym --stdio -g none 2>/dev/null |
    grep -E '\[k\] (ksys_write|__x64_sys_(pwrite64|pread64|read|recvfrom|unlink|openat|futex|poll)|asm_exc_page_fault)$' |
    sed 's/^/    kernel, with what it calls: /'
}

# The 15 wheels of the torch profile of CUDA $UV_LABEL from PyPI and their cuda-toolkit metapackage,
# fetched once into the e2e cache; sets REAL_WHEELS to their folder.
real_wheels() {
  local cache=${CUDAENV_E2E_CACHE:-/var/cache/cudaenv-e2e} root label
  REAL_WHEELS=$cache/wheels-$UV_LABEL
  [ -e "$REAL_WHEELS/complete" ] && return
  echo "bench/install: fetching the torch profile of CUDA $UV_LABEL from PyPI into $REAL_WHEELS (once; 1.3 GB)..." >&2
  mkdir -p "$cache/cudaenv-cache" "$REAL_WHEELS"
  root=$(mktemp -d "$WORK/fetch.XXXXXX")
  ln -s "$cache/cudaenv-cache" "$root/cache"
  CUDAENV_ROOT=$root NO_COLOR=1 "$CUDAENV" install "$UV_LABEL" --source pypi --index-url https://pypi.org/simple \
    --profile torch --keep-downloads --no-progress --platform linux-x86_64 >&2
  label=$(ls "$root/versions")
  ln -f "$cache/cudaenv-cache/$label"/*.whl "$REAL_WHEELS/"
  python3 -m pip download --quiet --no-deps --only-binary :all: --dest "$REAL_WHEELS" "cuda-toolkit==$label" >&2
  touch "$REAL_WHEELS/complete"
}

# The requirements of the wheels in ROOT/files, name==version from each file name.
wheel_requirements() {  # ROOT
  for wheel in "$1"/files/nvidia_*.whl; do
    wheel=$(basename "$wheel")
    echo "$(echo "$wheel" | cut -d- -f1)==$(echo "$wheel" | cut -d- -f2)"
  done
}

# uv installs the wheels of the fixture at UV_ROOT from the index at URL into an empty target,
# with a cold cache; prints what timed prints.
uv_install() {
  rm -rf "$WORK/uv-target" "$WORK/uv-cache"
  local requirements
  mapfile -t requirements < <(wheel_requirements "$UV_ROOT")
  timed "$UV" pip install --quiet --no-deps --python python3 --cache-dir "$WORK/uv-cache" \
    --index-url "${URL}simple" --target "$WORK/uv-target" "${requirements[@]}"
}

# The system calls `strace -c -f` counted, the most frequent first.
syscall_counts() {  # TITLE STRACE_SUMMARY
  printf '%s: system calls (strace -c -f)\n' "$1"
  awk '$1 ~ /^[0-9.]+$/ && NF >= 5 { printf "  %-14s %8d%s\n", $NF, $4, (NF == 6 ? " (" $5 " failed)" : "") }' "$2" |
    sort -k2,2nr | head -14
}

# cudaenv against uv on the same wheels from the loopback index at URL, ROUNDS interleaved rounds
# (BEFORE, where set, in the same rounds).
measure_uv() {  # NAME ROOT
  local name=$1 root=$2 round c rss c_cpu c_sys u u_rss u_cpu u_sys b b_rss b_cpu b_sys peak=0 u_peak=0 b_peak=0 side
  local installs=() uvs=() ratios=() cpu_installs=() cpu_uvs=() sys_installs=() sys_uvs=() requirements=() befores=() before_ratios=()
  cat "$root"/files/*.whl >/dev/null  # in the page cache, for every side alike
  mapfile -t requirements < <(wheel_requirements "$root")
  local sides=(cudaenv uv)
  [ -z "$BEFORE" ] || sides+=(before)
  for round in $(seq "$ROUNDS"); do
    # Each round starts with another side, so that a drift in the machine's speed favours none.
    for side in "${sides[@]:$((round % ${#sides[@]}))}" "${sides[@]:0:$((round % ${#sides[@]}))}"; do
      case $side in
        cudaenv) read -r c rss c_cpu c_sys <<<"$(install "$CUDAENV" "$UV_LABEL" --source pypi --index-url "${URL}simple" --profile torch)" ;;
        before) read -r b b_rss b_cpu b_sys <<<"$(install "$BEFORE" "$UV_LABEL" --source pypi --index-url "${URL}simple" --profile torch)" ;;
        uv)
          read -r u u_rss u_cpu u_sys <<<"$(uv_install)" ;;
      esac
      rm -rf "$WORK/uv-target" "$WORK/uv-cache" "$WORK/root"
    done
    installs+=("$c") uvs+=("$u") ratios+=("$(ratio "$c" "$u")") cpu_installs+=("$c_cpu") cpu_uvs+=("$u_cpu") sys_installs+=("$c_sys") sys_uvs+=("$u_sys")
    [ "$rss" -gt "$peak" ] && peak=$rss
    [ "$u_rss" -gt "$u_peak" ] && u_peak=$u_rss
    printf '  %s round %d: cudaenv %.2f s (CPU %.2f s, system %.2f s, peak RSS %.1f MiB), uv %.2f s (CPU %.2f s, system %.2f s, peak RSS %.1f MiB): %.3f\n' \
      "$name" "$round" "$c" "$c_cpu" "$c_sys" "$(echo "$rss / 1024" | bc -l)" "$u" "$u_cpu" "$u_sys" "$(echo "$u_rss / 1024" | bc -l)" "${ratios[-1]}"
    if [ -n "$BEFORE" ]; then
      befores+=("$b") before_ratios+=("$(ratio "$b" "$u")")
      [ "$b_rss" -gt "$b_peak" ] && b_peak=$b_rss
      printf '    before: %.2f s (CPU %.2f s, system %.2f s, peak RSS %.1f MiB): %.3f\n' "$b" "$b_cpu" "$b_sys" "$(echo "$b_rss / 1024" | bc -l)" "${before_ratios[-1]}"
    fi
  done
  printf '%s: %d wheels, %.1f MB, %d rounds (medians)\n' "$name" "${#requirements[@]}" \
    "$(echo "$(du -cbL "$root"/files/nvidia_*.whl | tail -1 | cut -f1) / 1000000" | bc -l)" "$ROUNDS"
  printf '  cudaenv install: %.2f s (rounds %.2f-%.2f), CPU %.2f s (system %.2f s), peak RSS %.1f MiB\n' "$(median "${installs[@]}")" \
    "$(minimum "${installs[@]}")" "$(maximum "${installs[@]}")" "$(median "${cpu_installs[@]}")" "$(median "${sys_installs[@]}")" \
    "$(echo "$peak / 1024" | bc -l)"
  printf '  uv pip install --no-deps --target: %.2f s (rounds %.2f-%.2f), CPU %.2f s (system %.2f s), peak RSS %.1f MiB\n' \
    "$(median "${uvs[@]}")" "$(minimum "${uvs[@]}")" "$(maximum "${uvs[@]}")" "$(median "${cpu_uvs[@]}")" "$(median "${sys_uvs[@]}")" \
    "$(echo "$u_peak / 1024" | bc -l)"
  report "ratio cudaenv / uv (per round; goal <= 1.0)" "${ratios[@]}"
  if [ -n "$BEFORE" ]; then
    printf '  before (%s): %.2f s (rounds %.2f-%.2f), peak RSS %.1f MiB\n' "$BEFORE" "$(median "${befores[@]}")" \
      "$(minimum "${befores[@]}")" "$(maximum "${befores[@]}")" "$(echo "$b_peak / 1024" | bc -l)"
    report "before: ratio before / uv" "${before_ratios[@]}"
  fi
}

# A resumed install against the download of what it fetched, ROUNDS rounds: each kills an
# install half-way, then runs it again (and a whole install, for its CPU time).
measure_resume() {  # ROOT INSTALL_ARGS...
  local root=$1
  shift
  local total walls=() whole_walls=() ratios=() cpus=() whole_cpus=() wall cpu rss fetched whole whole_wall half round
  total=$(du -cb $(archives_of "$root" tar.xz) | tail -1 | cut -f1)
  half=$(echo "$total / 2 / 40000000" | bc -l)
  for round in $(seq "$ROUNDS"); do
    read -r whole_wall _ whole _ <<<"$(install "$CUDAENV" "$@")"
    rm -rf "$WORK/root"
    CUDAENV_ROOT="$WORK/root" NO_COLOR=1 "$CUDAENV" install "$@" --platform linux-x86_64 >/dev/null 2>&1 &
    local pid=$!
    sleep "$half"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null || true
    fetched=$(du -cb "$WORK/root/cache" | tail -1 | cut -f1)  # what the killed run left to resume
    /usr/bin/time -f '%e %M %U %S' -o "$WORK/time.txt" env CUDAENV_ROOT="$WORK/root" NO_COLOR=1 "$CUDAENV" install "$@" \
      --platform linux-x86_64 >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
    read -r wall rss cpu <<<"$(awk '{ printf "%s %s %.2f", $1, $2, $3 + $4 }' "$WORK/time.txt")"
    fetched=$((total - fetched))
    walls+=("$wall") whole_walls+=("$whole_wall") cpus+=("$cpu") whole_cpus+=("$whole")
    ratios+=("$(ratio "$wall" "$(echo "$fetched / 40000000" | bc -l)")")
    printf '  resume round %d: killed after %.2f s; the run again fetched %.1f MB in %.2f s (%.3f x downloading that alone at 40 MB/s), CPU %.2f s; a whole install %.2f s, CPU %.2f s\n' \
      "$round" "$half" "$(echo "$fetched / 1000000" | bc -l)" "$wall" "${ratios[-1]}" "$cpu" "$whole_wall" "$whole"
  done
  printf 'resume at 40 MB/s, %d rounds (medians)\n' "$ROUNDS"
  report "the resumed run / downloading what it fetched alone (at the link's rate)" "${ratios[@]}"
  printf '  the resumed run %.2f s (CPU %.2f s), a whole install %.2f s (CPU %.2f s)\n' "$(median "${walls[@]}")" \
    "$(median "${cpus[@]}")" "$(median "${whole_walls[@]}")" "$(median "${whole_cpus[@]}")"
}

# The CPU's model beside the cores: on different days this VM has decoded the same archives a sixth
# apart in CPU time.
printf 'bench/install: %s, %s, %d CPU cores (%s), load average at start: %s\n' "$("$CUDAENV" --version 2>&1 | head -1)" \
  "$("$XZ" --version | tail -1)" "$(nproc)" "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
for set in $SETS; do
  case $set in
    cuda13)
      fixture redist cuda13 13.0.48 cuda13
      for rate in $RATES; do
        start_mirror "$FIXTURES/cuda13" "$rate"
        measure "cuda13 .tar.xz at $rate MB/s" "$FIXTURES/cuda13" tar.xz "$ROUNDS" "download decode unpack tar" \
          13.0.48 --mirror "$URL" --skip-manifest-pin --profile full
      done ;;
    torch)
      fixture redist torch 13.0.49 torch
      start_mirror "$FIXTURES/torch" 40
      measure "torch profile .tar.xz at 40 MB/s" "$FIXTURES/torch" tar.xz "$TORCH_ROUNDS" download \
        13.0.49 --mirror "$URL" --skip-manifest-pin --profile torch ;;
    pypi)
      fixture pypi pypi 13.0.2 torch
      start_mirror "$FIXTURES/pypi" 40
      measure "torch profile wheels (--source pypi) at 40 MB/s" "$FIXTURES/pypi" whl "$TORCH_ROUNDS" download \
        13.0.2 --source pypi --index-url "${URL}simple" --profile torch ;;
    profile)
      command -v perf >/dev/null || { echo "bench/install: SETS=profile needs perf (apt-get install linux-perf)" >&2; exit 1; }
      fixture redist cuda13 13.0.48 cuda13
      for rate in $RATES; do
        start_mirror "$FIXTURES/cuda13" "$rate"
        UNDER=(perf record -q -F 999 -g -o "$WORK/install.data" --)
        install "$CUDAENV" 13.0.48 --mirror "$URL" --skip-manifest-pin --profile full >/dev/null
        UNDER=(perf record -q -F 999 -g -o "$WORK/xz.data" --)
        decode_floor "$FIXTURES/cuda13" >/dev/null
        UNDER=()
        perf_shares "cudaenv install, cuda13 at $rate MB/s" "$WORK/install.data"
        perf_shares "xz -dc, one per core, cuda13 at $rate MB/s" "$WORK/xz.data"
      done ;;
    uv)
      UV=${UV:-${CUDAENV_E2E_CACHE:-/var/cache/cudaenv-e2e}/uv/bin/uv}
      UV_LABEL=${UV_LABEL:-13.2}
      [ -x "$UV" ] || { echo "bench/install: SETS=uv needs uv at $UV: pip install --target $(dirname "$(dirname "$UV")") uv==0.13.9" >&2; exit 1; }
      printf 'uv: %s\n' "$("$UV" --version)"
      real_wheels
      [ -e "$FIXTURES/uv-$UV_LABEL/complete" ] || { rm -rf "${FIXTURES:?}/uv-$UV_LABEL"; python3 "$HERE/install_fixture.py" real "$FIXTURES/uv-$UV_LABEL" "$REAL_WHEELS"; }
      UV_ROOT="$FIXTURES/uv-$UV_LABEL"
      for rate in ${UV_RATES:-0 100}; do
        start_mirror "$UV_ROOT" "$rate"
        measure_uv "torch profile of $UV_LABEL, NVIDIA's wheels, $([ "$rate" = 0 ] && echo unthrottled || echo "at $rate MB/s")" \
          "$FIXTURES/uv-$UV_LABEL"
      done
      # UV_PROFILE=1: one unthrottled install of each cudaenv under perf record, its CPU's shares.
      if [ "${UV_PROFILE:-0}" = 1 ]; then
        start_mirror "$FIXTURES/uv-$UV_LABEL" 0
        for side in CUDAENV BEFORE; do
          [ -n "${!side}" ] || continue
          UNDER=(perf record -q -F 999 -g -o "$WORK/$side.data" --)
          install "${!side}" "$UV_LABEL" --source pypi --index-url "${URL}simple" --profile torch >/dev/null
          UNDER=()
          perf_shares "$side (${!side}), the wheels unthrottled" "$WORK/$side.data"
        done
      fi
      if [ "${UV_SYSCALLS:-0}" = 1 ]; then
        start_mirror "$FIXTURES/uv-$UV_LABEL" 0
        for side in CUDAENV BEFORE; do
          [ -n "${!side}" ] || continue
          UNDER=(strace -c -f -o "$WORK/strace.txt" --)
          install "${!side}" "$UV_LABEL" --source pypi --index-url "${URL}simple" --profile torch >/dev/null
          syscall_counts "$side (${!side}), the wheels unthrottled" "$WORK/strace.txt"
        done
        UNDER=(strace -c -f -o "$WORK/strace.txt" --)
        uv_install >/dev/null
        syscall_counts "uv, the same wheels" "$WORK/strace.txt"
        UNDER=()
        rm -rf "$WORK/uv-target" "$WORK/uv-cache" "$WORK/root"
      fi ;;
    resume)
      fixture redist cuda13 13.0.48 cuda13
      start_mirror "$FIXTURES/cuda13" 40
      measure_resume "$FIXTURES/cuda13" 13.0.48 --mirror "$URL" --skip-manifest-pin --profile full ;;
    *) echo "bench/install: SETS names cuda13, torch, pypi, uv, resume and profile, not '$set'" >&2; exit 1 ;;
  esac
done
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

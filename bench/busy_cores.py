#!/usr/bin/env python3
"""bench/busy_cores.py -- COMMAND...: runs COMMAND (its output thrown away) and samples /proc/stat
every 25 ms. Prints the wall time, how many cores were busy in each quarter second, and the core-
seconds the machine's cores sat idle while it ran: where an install's CPU time is below another
tool's and its wall time is not, this says whether the cores waited (docs/performance.md)."""
import os
import subprocess
import sys
import time


def busy_and_total():
    fields = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def main():
    if len(sys.argv) < 3 or sys.argv[1] != "--":
        sys.exit("usage: bench/busy_cores.py -- COMMAND...")
    cores = os.cpu_count()
    start = time.monotonic()
    last = busy_and_total()
    process = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples = []  # (seconds since start, busy cores over the last sample)
    while process.poll() is None:
        time.sleep(0.025)
        now = busy_and_total()
        samples.append((time.monotonic() - start, cores * (now[0] - last[0]) / max(1, now[1] - last[1])))
        last = now
    wall = time.monotonic() - start
    quarters = {}
    for at, busy in samples:
        quarters.setdefault(int(at / 0.25), []).append(busy)
    print(f"wall {wall:.2f} s, exit {process.returncode}")
    print("busy cores per 0.25 s:", " ".join(f"{sum(v) / len(v):.1f}" for _, v in sorted(quarters.items())))
    print(f"idle core-seconds: {sum((cores - busy) * 0.025 for _, busy in samples):.2f}")


main()

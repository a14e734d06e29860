"""The shim's replay and the hook's fast path against a fresh resolution, under random changes
(shim_differential.sh).

Each step changes the world a shim resolves in (cuda.toml files at three depths, the global
version file, toolkits added, removed, linked, relinked, made unrunnable, CUDAENV_VERSION, a
system nvcc on PATH, the working folder, a file touched), then runs the shim twice and
`cudaenv shim -` (a resolution that writes no record) once, and requires the three to print the
same and exit alike. Between steps it waits past the timestamp tick, so that records are
written and replayed; the shims folder's .cudaenv logs every hand-over, so the run can tell how
many calls replayed. The hook's freshness test (its own list of what to watch, shell/hook.cpp) is
held to the same world: a shell that ran `cudaenv hook-env` at every prompt since it started must
have the environment that a shell starting now gets from it.
Usage: shim_differential.py CUDAENV BUILD_WORK STEPS SEED
"""
import os
import random
import shutil
import subprocess
import sys
import time

cudaenv, work, steps, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
root = os.environ["CUDAENV_ROOT"]
versions = os.path.join(root, "versions")
shims = os.path.join(root, "shims")
proj = os.path.join(work, "proj")
folders = [proj, os.path.join(proj, "a"), os.path.join(proj, "a", "b"), os.path.join(work, "outside")]
external = os.path.join(work, "external")
pool = ["11.8.0", "12.1.1", "12.4.0", "12.4.1", "12.9.0", "13.0.1", "mine"]
requests = ["12", "12.1", "12.4", "12.4.1", "11", "13.0", "system", "mine", "9.9", "bad..name"]
log = os.path.join(work, "handovers.log")

NVCC = """#!/bin/sh
echo "$0 home=${CUDA_HOME:-} path=${PATH%%:*} lib=${LD_LIBRARY_PATH%%:*} arch=${TORCH_CUDA_ARCH_LIST:-}/${CUDAARCHS:-}"
"""


def toolkit(folder):
    os.makedirs(os.path.join(folder, "bin"), exist_ok=True)
    nvcc = os.path.join(folder, "bin", "nvcc")
    with open(nvcc, "w") as f:
        f.write(NVCC)
    os.chmod(nvcc, 0o755)


def add(name):
    new = os.path.join(root, ".new-" + name)
    shutil.rmtree(new, ignore_errors=True)
    toolkit(new)
    target = os.path.join(versions, name)
    remove(name)
    os.rename(new, target)


def remove(name):
    target = os.path.join(versions, name)
    if os.path.islink(target) or os.path.isfile(target):
        os.unlink(target)
    elif os.path.isdir(target):
        shutil.rmtree(target)


def link(name, to):
    temporary = os.path.join(versions, ".link-" + name)
    if os.path.lexists(temporary):
        os.unlink(temporary)
    os.symlink(to, temporary)
    remove(name)
    os.rename(temporary, os.path.join(versions, name))


def project_file(folder, request, arch):
    text = '[cuda]\nversion = "%s"\n' % request
    if arch:
        text += 'arch = ["8.9", "9.0+PTX"]\n'
    with open(os.path.join(folder, "cuda.toml"), "w") as f:
        f.write(text)


env = dict(os.environ)
state = {"cwd": proj, "shell": None, "fast_prompts": 0}


def mutate():
    kind = rng.randrange(14)
    name = rng.choice(pool)
    folder = rng.choice(folders[:3])
    if kind == 0:
        project_file(folder, rng.choice(requests), rng.random() < 0.3)
    elif kind == 1 and os.path.exists(os.path.join(folder, "cuda.toml")):
        os.unlink(os.path.join(folder, "cuda.toml"))
    elif kind == 2 and os.path.exists(os.path.join(folder, "cuda.toml")):
        # In place, same size: 12.1 <-> 12.4, keeping inode and length.
        path = os.path.join(folder, "cuda.toml")
        with open(path, "r+") as f:
            text = f.read()
            swapped = text.replace("12.1", "@").replace("12.4", "12.1").replace("@", "12.4")
            f.seek(0)
            f.write(swapped)
    elif kind == 3:
        with open(os.path.join(root, "version"), "w") as f:
            f.write(rng.choice(requests) + "\n")
    elif kind == 4 and os.path.exists(os.path.join(root, "version")):
        os.unlink(os.path.join(root, "version"))
    elif kind in (5, 6):
        add(name)
    elif kind == 7:
        remove(name)
    elif kind == 8:
        link(name, os.path.join(external, rng.choice(["a", "b"])))
    elif kind == 9 and os.path.isfile(os.path.join(versions, name, "bin", "nvcc")):
        nvcc = os.path.join(versions, name, "bin", "nvcc")
        os.chmod(nvcc, os.stat(nvcc).st_mode ^ 0o111)
    elif kind == 10:
        if rng.random() < 0.5:
            env["CUDAENV_VERSION"] = rng.choice(requests)
        else:
            env.pop("CUDAENV_VERSION", None)
    elif kind == 11:
        system = os.path.join(external, "system", "bin")
        base = "/usr/local/bin:/usr/bin:/bin"
        env["PATH"] = rng.choice([shims + ":" + base, shims + ":" + system + ":" + base, system + ":" + shims + ":" + base])
        if state["shell"]:  # a new PATH is a new shell: init puts the shims first
            state["shell"].stdin.close()
        state["shell"] = None
    elif kind == 12:
        state["cwd"] = rng.choice(folders)
    else:
        for path in (os.path.join(folder, "cuda.toml"), os.path.join(root, "version")):
            if os.path.exists(path):
                os.utime(path)


def run(command):
    env["PWD"] = state["cwd"]
    done = subprocess.run(command, cwd=state["cwd"], env=env, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


# The hook runs in real bash, as `cudaenv init bash` sets it up: a shell kept from step to step
# (its prompt may take the fast path) against one started for this step alone (it cannot).
NOISE = {"PWD", "OLDPWD", "SHLVL", "_", "__CUDAENV_STATE"}
END = b"\0@@end@@\0"


def start_shell():
    shell = subprocess.Popen(["bash", "--norc", "--noprofile", "-s"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=dict(env), cwd=state["cwd"])
    shell.stdin.write(('eval "$(%s init bash)"\n' % cudaenv).encode())
    return shell


def prompt(shell):
    """Sets CUDAENV_VERSION as the test's environment has it, runs the prompt's hook in the
    current folder, and returns whether it took the fast path and the shell's environment then,
    less what bash sets itself."""
    version = env.get("CUDAENV_VERSION")
    line = ("export CUDAENV_VERSION='%s'; " % version) if version is not None else "unset CUDAENV_VERSION; "
    script = line + "cd '%s' && { _cudaenv_unchanged && printf F || printf S; } && _cudaenv_hook && env -0 && " \
                    "printf '\\0@@end@@\\0'\n" % state["cwd"]
    shell.stdin.write(script.encode())
    shell.stdin.flush()
    out = b""
    while not out.endswith(END):
        chunk = shell.stdout.read1(65536)
        if not chunk:
            raise RuntimeError("the shell ended")
        out += chunk
    entries = out[1: -len(END)].decode().split("\0")
    return out[:1] == b"F", {k: v for k, _, v in (e.partition("=") for e in entries if "=" in e) if k not in NOISE}


def hook_mismatch():
    if state["shell"] is None:
        state["shell"] = start_shell()
    fast, kept = prompt(state["shell"])
    state["fast_prompts"] += fast
    new = start_shell()
    _, fresh = prompt(new)
    new.stdin.close()
    new.wait()
    if kept != fresh:
        return "hook: the kept shell and a new one differ in %r" % sorted(set(kept.items()) ^ set(fresh.items()))
    return None


def handovers():
    try:
        with open(log) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def main():
    for folder in folders:
        os.makedirs(folder, exist_ok=True)
    for name in ("a", "b", "system"):
        toolkit(os.path.join(external, name))
    for name in pool[:4]:
        add(name)
    project_file(proj, "12", False)
    subprocess.run([cudaenv, "rehash"], env=env, check=True, capture_output=True)
    real = os.path.join(shims, ".cudaenv")
    os.unlink(real)
    with open(real, "w") as f:
        f.write('#!/bin/sh\necho "$PWD" >>"%s"\nexec "%s" "$@"\n' % (log, cudaenv))
    os.chmod(real, 0o755)
    shim = os.path.join(shims, "nvcc")
    mismatches = calls = runnable = 0
    for step in range(steps):
        mutate()
        if rng.random() < 0.7:
            time.sleep(0.03)  # past the tick: the next resolution may be recorded
        expected = run([cudaenv, "shim", "-", shim, "nvcc"])
        runnable += 0 if expected[2].startswith("cudaenv: error") else 2
        for attempt in range(2):
            got = run([shim])
            calls += 1
            if got != expected:
                mismatches += 1
                print("step %d (seed %d), call %d in %s: shim %r, resolution %r" % (step, seed, attempt, state["cwd"], got, expected))
            time.sleep(0.03)
        hook = hook_mismatch()
        if hook:
            mismatches += 1
            print("step %d (seed %d) in %s: %s" % (step, seed, state["cwd"], hook))
    replays = calls - handovers()
    print("%d steps, %d shim calls, %d that ran a program, %d replayed, %d prompts on the hook's fast path, "
          "%d mismatches (seed %d)" % (steps, calls, runnable, replays, state["fast_prompts"], mismatches, seed))
    if mismatches:
        sys.exit(1)
    # Only a call that runs a program (the fake nvcc, or the system's) can replay; errors are
    # the CLI's every time.
    if replays < runnable // 4:
        print("too few replays to have tested them: %d of %d" % (replays, runnable))
        sys.exit(1)
    if state["fast_prompts"] < steps // 10:
        print("too few prompts on the hook's fast path to have tested it: %d of %d" % (state["fast_prompts"], steps))
        sys.exit(1)


main()

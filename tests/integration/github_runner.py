#!/usr/bin/env python3
"""Runs the GitHub Actions job in docs/guide.md (between <!-- ci-job:start --> and <!-- ci-job:end -->)
the way a runner does, for tests/integration/ci_github.sh:

  github_runner.py GUIDE WORKSPACE CACHE_DIR SKIP_STEP_NAME...

Each `run:` step runs in `bash --noprofile --norc -eo pipefail` (GitHub's default shell) in WORKSPACE
with fresh GITHUB_ENV, GITHUB_PATH and GITHUB_OUTPUT files; after it, their lines become the job's
environment, PATH entries (the last line first) and `steps.<id>.outputs`. `${{ github.workspace }}`,
`${{ env.X }}` and `${{ steps.X.outputs.Y }}` are expanded. actions/checkout does nothing (the test
prepared the workspace); actions/cache restores `path` from CACHE_DIR/<key> and saves it there after
the last step when it missed, as the real action's post step does. Steps named SKIP_STEP_NAME are
skipped (the test puts its own build of cudaenv on PATH). Prints one `::step <name> <seconds>` line
per step and `::cache hit|miss <key>`.
"""
import os
import re
import shutil
import subprocess
import sys
import time


def job_text(readme):
    text = open(readme).read()
    block = text.split("<!-- ci-job:start -->", 1)[1].split("<!-- ci-job:end -->", 1)[0]
    return block.split("```yaml", 1)[1].split("```", 1)[0]


def parse_job(text):
    """The job's env and steps, from the plain YAML subset the guide uses."""
    lines = text.splitlines()
    env, steps = {}, []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if stripped == "env:" and not steps:
            i += 1
            while i < len(lines) and len(lines[i]) - len(lines[i].lstrip()) > indent:
                key, value = lines[i].strip().split(":", 1)
                env[key] = value.strip()
                i += 1
            continue
        if stripped.startswith("- ") and steps is not None and ("uses:" in stripped or "name:" in stripped):
            step, step_indent = {}, indent + 2
            first = stripped[2:]
            i = read_mapping(lines, i, step, step_indent, first)
            steps.append(step)
            continue
        i += 1
    return env, steps


def read_mapping(lines, i, into, indent, first=None):
    """Reads `key: value` lines at `indent` (and a block scalar or a nested mapping under one)."""
    pending = [first] if first is not None else []
    i += 1 if first is not None else 0
    while True:
        if pending:
            entry = pending.pop()
        else:
            if i >= len(lines):
                return i
            line = lines[i]
            if line.strip() and len(line) - len(line.lstrip()) != indent:
                return i
            entry = line.strip()
            i += 1
            if not entry:
                continue
        key, value = entry.split(":", 1)
        value = value.strip()
        if value == "|":
            body = []
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                body.append(lines[i][indent + 2:])
                i += 1
            into[key] = "\n".join(body).rstrip("\n") + "\n"
        elif value == "":
            nested = {}
            i = read_mapping(lines, i, nested, indent + 2)
            into[key] = nested
        else:
            into[key] = value


def expand(text, context):
    def value(match):
        expression = match.group(1).strip()
        parts = expression.split(".")
        if expression == "github.workspace":
            return context["workspace"]
        if parts[0] == "env":
            return context["env"].get(parts[1], "")
        if parts[0] == "steps" and parts[2] == "outputs":
            return context["outputs"].get(parts[1], {}).get(parts[3], "")
        raise SystemExit("github_runner: cannot expand ${{ %s }}" % expression)

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def read_env_file(path, env):
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            while lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            i += 1
            env[name] = "\n".join(value)
        else:
            name, value = line.split("=", 1)
            env[name] = value


def main():
    readme, workspace, cache_dir = sys.argv[1:4]
    skipped = set(sys.argv[4:])
    job_env, steps = parse_job(job_text(readme))
    context = {"workspace": workspace, "env": {}, "outputs": {}}
    env = dict(os.environ)
    for key, value in job_env.items():
        env[key] = expand(value, context)
    context["env"] = env
    prepended = []
    saves = []
    temp = os.path.join(workspace, ".runner")
    os.makedirs(temp, exist_ok=True)
    for number, step in enumerate(steps):
        name = step.get("name", step.get("uses", "step %d" % number))
        started = time.monotonic()
        if name in skipped or step.get("uses", "").startswith("actions/checkout"):
            pass
        elif step.get("uses", "").startswith("actions/cache"):
            options = {k: expand(v, context) for k, v in step.get("with", {}).items()}
            stored = os.path.join(cache_dir, options["key"])
            if os.path.isdir(stored):
                shutil.rmtree(options["path"], ignore_errors=True)
                os.makedirs(os.path.dirname(options["path"]), exist_ok=True)
                shutil.copytree(stored, options["path"], symlinks=True)
                print("::cache hit %s" % options["key"], flush=True)
            else:
                print("::cache miss %s" % options["key"], flush=True)
                saves.append(options)
        else:
            files = {}
            for variable in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT"):
                files[variable] = os.path.join(temp, "%s_%d" % (variable.lower(), number))
                open(files[variable], "w").close()
            step_env = dict(env)
            step_env.update(files)
            step_env["PATH"] = ":".join(list(reversed(prepended)) + [env["PATH"]])
            script = expand(step["run"], context)
            result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                                    cwd=workspace, env=step_env)
            if result.returncode != 0:
                print("::error step '%s' exited %d" % (name, result.returncode), flush=True)
                sys.exit(1)
            read_env_file(files["GITHUB_ENV"], env)
            for entry in open(files["GITHUB_PATH"]).read().splitlines():
                if entry:
                    prepended.append(entry)
            outputs = {}
            read_env_file(files["GITHUB_OUTPUT"], outputs)
            if "id" in step:
                context["outputs"][step["id"]] = outputs
        print("::step %s %.3f" % (name.replace(" ", "_"), time.monotonic() - started), flush=True)
    for options in saves:
        stored = os.path.join(cache_dir, options["key"])
        shutil.copytree(options["path"], stored, symlinks=True)
        print("::cache saved %s" % options["key"], flush=True)


main()

#!/usr/bin/env bash
# The README's second command: installs the Debian packages the build and the tests need,
# builds everything with warnings as errors and runs every test (unit and integration).
#   ./test.sh                    BUILD_DIR=build-ci CTEST_PARALLEL_LEVEL=4 ./test.sh
set -euo pipefail
cd "$(dirname "$0")"
BUILD_DIR=${BUILD_DIR:-build}
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-2}

scripts/ensure-apt-packages.sh build test
cmake -S . -B "$BUILD_DIR" -G Ninja -DCUDAENV_WERROR=ON
cmake --build "$BUILD_DIR"
# uv is not in Debian 12: it comes from PyPI into the build folder for the suites that drive it,
# which skip their uv parts, saying so, where PyPI can't be reached.
tools="$(cd "$BUILD_DIR" && pwd)/test-tools"
if [ ! -x "$tools/bin/uv" ]; then
  rm -rf "$tools" && python3 -m venv "$tools/venv" && mkdir -p "$tools/bin" &&
    timeout 300 "$tools/venv/bin/pip" install -q --disable-pip-version-check uv &&
    ln -s ../venv/bin/uv "$tools/bin/uv" ||
    echo "uv could not be installed from PyPI: the uv parts of the torch suites will be skipped" >&2
fi
export CUDAENV_TEST_TOOLS="$tools/bin"
ctest --test-dir "$BUILD_DIR" --output-on-failure

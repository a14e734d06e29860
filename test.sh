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
ctest --test-dir "$BUILD_DIR" --output-on-failure

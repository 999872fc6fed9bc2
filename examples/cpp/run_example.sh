#!/usr/bin/env bash
# Installs the build tree BUILD into a temporary prefix, builds this example against it with
# find_package(powerzoo), and runs it (the ctest cpp_example). Usage: run_example.sh BUILD SRC
set -euo pipefail
build=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
cmake -S "$src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$tmp/build" -j 2 > /dev/null
"$tmp/build/custom_loop"

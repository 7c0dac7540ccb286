#!/usr/bin/env bash
# Bundles js/src and the pinned @pkmn packages into build/engine.js, one self-contained script
# for mini-racer (no require, no process, `global` is globalThis); and js/checks (the same plus
# what tests and benchmarks call) into build/checks.js.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/build"
cd "$root/js"
# --keep-names: @pkmn/sim serialises a battle by its classes' names (the search restores
# battles), which esbuild would otherwise rename where two packages' classes share a name.
bundle() {
  node_modules/.bin/esbuild "$1" --bundle --format=iife --platform=neutral --keep-names \
    --main-fields=module,main --target=es2022 --define:global=globalThis \
    --define:process.env.NODE_ENV='"production"' --log-level=warning \
    --outfile="$root/build/$2"
  echo "built build/$2 ($(wc -c < "$root/build/$2") bytes)"
}
bundle src/index.js engine.js
bundle checks/index.js checks.js

#!/usr/bin/env bash
# Bundles js/src and the pinned @pkmn packages into build/engine.js, one self-contained script
# for mini-racer (no require, no process, `global` is globalThis).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/build"
cd "$root/js"
node_modules/.bin/esbuild src/index.js --bundle --format=iife --platform=neutral \
  --main-fields=module,main --target=es2022 --define:global=globalThis \
  --define:process.env.NODE_ENV='"production"' --log-level=warning \
  --outfile="$root/build/engine.js"
echo "built build/engine.js ($(wc -c < "$root/build/engine.js") bytes)"

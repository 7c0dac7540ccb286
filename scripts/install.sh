#!/usr/bin/env bash
# Sets up everything metapvp needs, in three steps that each rerun only when their inputs change:
#   1. .venv (or $METAPVP_VENV) with torch ($METAPVP_TORCH_SPEC, default torch==2.13.0) and the
#      package's dependencies          -- inputs: pyproject.toml, the torch spec
#   2. npm ci in js/                   -- inputs: js/package-lock.json
#   3. build/engine.js, build/checks.js -- inputs: js/src, js/checks, js/package-lock.json, the
#                                         build script
# `rp` runs this before every command; with nothing changed it returns at once.
# Force a step to rerun with METAPVP_REBUILD=1 (all steps) or by deleting .venv, js/node_modules
# or build/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${METAPVP_VENV:-$root/.venv}
torch_spec=${METAPVP_TORCH_SPEC:-torch==2.13.0}
python=${METAPVP_PYTHON:-python3}
stamps=$root/build/stamps
mkdir -p "$stamps"

digest() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }
fresh() { [ -z "${METAPVP_REBUILD:-}" ] && [ -f "$stamps/$1" ] && [ "$(cat "$stamps/$1")" = "$2" ]; }
say() { echo "[metapvp install] $*" >&2; }

py_key=$( (digest "$root/pyproject.toml"; echo "$torch_spec $venv") | sha256sum | cut -c1-16)
if ! fresh python "$py_key" || [ ! -x "$venv/bin/python" ]; then
  say "creating $venv with $torch_spec"
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  pip() { "$venv/bin/python" -m pip install -q "$@" > "$stamps/pip.log" 2>&1 \
    || { cat "$stamps/pip.log" >&2; say "pip install $* failed"; exit 1; }; }
  pip --upgrade pip
  pip "$torch_spec"
  pip -e "$root"
  echo "$py_key" > "$stamps/python"
fi

npm_key=$(digest "$root/js/package-lock.json")
if ! fresh npm "$npm_key" || [ ! -d "$root/js/node_modules" ]; then
  say "npm ci in js/ (a few minutes the first time)"
  (cd "$root/js" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$npm_key" > "$stamps/npm"
fi

js_key=$( (digest "$root/js/package-lock.json" "$root/scripts/compile-headless-client.sh"; \
  find "$root/js/src" "$root/js/checks" -type f | sort | xargs cat | sha256sum) | sha256sum | cut -c1-16)
if ! fresh bundle "$js_key" || [ ! -f "$root/build/engine.js" ] || [ ! -f "$root/build/checks.js" ]; then
  say "bundling build/engine.js and build/checks.js"
  "$root/scripts/compile-headless-client.sh" >&2
  echo "$js_key" > "$stamps/bundle"
fi

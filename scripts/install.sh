#!/usr/bin/env bash
# Sets up everything metapvp needs, in three steps that each rerun only when their inputs change:
#   1. .venv (or $METAPVP_VENV) with torch ($METAPVP_TORCH_SPEC, default torch==2.13.0, installed
#      with $METAPVP_TORCH_PIP_ARGS, e.g. "--index-url URL" with PyTorch's index of CPU wheels)
#      and the package's dependencies  -- inputs: pyproject.toml, the torch spec and its pip args
#   2. npm ci in js/                   -- inputs: js/package-lock.json
#   3. the native search (search-rs/, Rust, into the venv by maturin) -- inputs: its sources,
#      Cargo.toml and Cargo.lock; skipped, said once, where there is no cargo
#   4. build/engine.js, build/checks.js -- inputs: js/src, js/checks, js/package-lock.json, the
#                                         build script
# Each step's stamp (the digest of its inputs) lives beside what the step made (the venv,
# js/node_modules, build/), so a checkout mounted over another (the Docker image's) rebuilds only
# what it lacks, and needs no network for what it has.
# `rp` runs this before every command; with nothing changed it returns at once.
# Force a step to rerun with METAPVP_REBUILD=1 (all steps) or by deleting .venv, js/node_modules
# or build/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${METAPVP_VENV:-$root/.venv}
torch_spec=${METAPVP_TORCH_SPEC:-torch==2.13.0}
torch_pip_args=${METAPVP_TORCH_PIP_ARGS:-}
python=${METAPVP_PYTHON:-python3}
mkdir -p "$root/build"

digest() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }
fresh() { [ -z "${METAPVP_REBUILD:-}" ] && [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
say() { echo "[metapvp install] $*" >&2; }

py_key=$( (digest "$root/pyproject.toml"; echo "$torch_spec $torch_pip_args") | sha256sum | cut -c1-16)
if ! fresh "$venv/.metapvp-stamp" "$py_key" || [ ! -x "$venv/bin/python" ]; then
  say "creating $venv with $torch_spec"
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  pip() { "$venv/bin/python" -m pip install -q "$@" > "$root/build/pip.log" 2>&1 \
    || { cat "$root/build/pip.log" >&2; say "pip install $* failed"; exit 1; }; }
  pip --upgrade pip
  # shellcheck disable=SC2086  # the pip args are words
  pip $torch_pip_args "$torch_spec"
  pip -e "$root[dev]"   # the package with every extra: Ray, Stable-Baselines3, the test tools
  echo "$py_key" > "$venv/.metapvp-stamp"
fi

npm_key=$(digest "$root/js/package-lock.json")
if ! fresh "$root/js/node_modules/.metapvp-stamp" "$npm_key"; then
  node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$node_major" -lt 20 ]; then
    say "Node.js 20 or newer is needed for js/ (found: $(node --version 2>/dev/null || echo none))"
    exit 1
  fi
  say "npm ci in js/ (a few minutes the first time)"
  (cd "$root/js" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$npm_key" > "$root/js/node_modules/.metapvp-stamp"
fi

# 3. the native search (search-rs/, Rust): built into the venv by maturin where cargo is there;
#    without a Rust toolchain the set-up goes on without it and says so once.
search_key=$( (digest "$root/search-rs/Cargo.toml" "$root/search-rs/Cargo.lock" "$root/search-rs/pyproject.toml"; \
  find "$root/search-rs/src" -type f | sort | xargs cat | sha256sum) | sha256sum | cut -c1-16)
search_stamp="$venv/.metapvp-search-stamp"
if ! command -v cargo >/dev/null 2>&1; then
  if ! fresh "$search_stamp" "skipped $search_key"; then
    say "no Rust toolchain (cargo): the native search (search-rs/) is not built, and 'agent' plays the"
    say "search on Showdown's simulator. Install Rust (rustup) and run ./rp again to build it."
    echo "skipped $search_key" > "$search_stamp"
  fi
elif ! fresh "$search_stamp" "$search_key"; then
  say "building the native search (search-rs/, Rust; a minute or two the first time)"
  "$venv/bin/python" -m pip install -q "maturin==1.16.0" > "$root/build/pip.log" 2>&1 \
    || { cat "$root/build/pip.log" >&2; say "pip install maturin failed"; exit 1; }
  VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --release --quiet -m "$root/search-rs/Cargo.toml" >&2 \
    || { say "building search-rs/ failed (above)"; exit 1; }
  echo "$search_key" > "$search_stamp"
fi

js_key=$( (digest "$root/js/package-lock.json" "$root/scripts/compile-headless-client.sh"; \
  find "$root/js/src" "$root/js/checks" -type f | sort | xargs cat | sha256sum) | sha256sum | cut -c1-16)
if ! fresh "$root/build/bundle.stamp" "$js_key" || [ ! -f "$root/build/engine.js" ] || [ ! -f "$root/build/checks.js" ]; then
  say "bundling build/engine.js and build/checks.js"
  "$root/scripts/compile-headless-client.sh" >&2
  echo "$js_key" > "$root/build/bundle.stamp"
fi

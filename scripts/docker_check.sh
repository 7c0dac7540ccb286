#!/usr/bin/env bash
# Checks the development image end to end on a machine with a Docker daemon (not part of the
# test suite, which runs without one):
#   1. builds the image (PyPI's torch unless the build arguments say otherwise) and prints its size;
#   2. inside a container: `agent` plays the native search (search-rs/, built in the image), a
#      short head2head of it, and one test module;
#   3. a checkout mounted over /workspace with no network (--network none): ./rp starts without
#      rebuilding the Python environment, and one test module passes.
# Each step's time is printed. Build arguments after `--` go to `docker build`, e.g.
#   scripts/docker_check.sh -- --build-arg NODE_IMAGE=local/node:20 --build-arg RUST_IMAGE=local/rust:1.95 \
#       --build-arg PYTHON_IMAGE=local/python:3.11
# or, for the CPU build of torch, -- --build-arg TORCH_PIP_ARGS="--index-url URL" (PyTorch's CPU wheels).
# The mounted checkout is this one: ./rp it first on the host so js/node_modules and build/ exist.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tag=metapvp:check
build_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; build_args+=("$@"); break ;;
    *) echo "docker_check: unknown argument $1 (build arguments go after --)" >&2; exit 2 ;;
  esac
  shift
done
module=metapvp.tests.test_contract

step() {  # step NAME COMMAND...: runs it, prints its time; stops the check where it fails
  local name=$1 start=$SECONDS; shift
  echo "== $name" >&2
  if ! "$@"; then echo "docker_check: FAILED at: $name" >&2; exit 1; fi
  echo "   $name: $((SECONDS - start)) s" >&2
}

[ -d "$root/js/node_modules" ] && [ -f "$root/build/engine.js" ] \
  || { echo "docker_check: run ./rp once on the host first (the mounted checkout needs js/node_modules and build/)" >&2; exit 2; }

step "build $tag" docker build -t "$tag" "${build_args[@]}" "$root"
size=$(docker image inspect "$tag" --format '{{.Size}}')
echo "   image size: $((size / 1000000)) MB" >&2
native_agent() {  # the image's agent is the native search's player, not the fallback in the simulator
  local out
  out=$(docker run --rm "$tag" ./rp -c 'from metapvp.players import make_player; p = make_player("agent"); print(type(p).__name__, p.config.prefix())' 2>&1) \
    || { echo "$out" >&2; return 1; }
  echo "$out" >&2
  grep -q "^NativeSearchPlayer native(" <<< "$out"
}
step "agent plays the native search in the image" native_agent
step "head2head in the image" docker run --rm "$tag" ./rp metapvp/exe/head2head.py --p1 agent --p2 maxdamage --num-matches 10
step "$module in the image" docker run --rm "$tag" ./rp -m nose2 "$module"
mounted=(docker run --rm --network none -v "$root":/workspace "$tag")
starts_at_once() {  # the image's venv is reused: no Python step, and the engine imports
  local out
  out=$("${mounted[@]}" ./rp -c 'import metapvp.engine; print("ok")' 2>&1) || { echo "$out" >&2; return 1; }
  echo "$out" >&2
  ! grep -q "creating /opt/metapvp-venv" <<< "$out" && grep -qx ok <<< "$out"
}
step "mounted checkout, no network: ./rp starts" starts_at_once
step "mounted checkout, no network: $module" "${mounted[@]}" ./rp -m nose2 "$module"
echo "docker_check: all steps passed ($tag, $((size / 1000000)) MB)" >&2

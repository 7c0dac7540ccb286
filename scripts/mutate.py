"""Checks that the tests can fail: applies each deliberate breakage of scripts/mutations.yml to a
copy of the checkout, runs the tests that should catch it there, and reports which caught it.
A breakage no test catches is a hole in the suite: the run exits 1 and names it.

    ./rp scripts/mutate.py [--only TEXT ...] [--keep]

The copy is made once (the tracked files, with this checkout's js/node_modules linked in) and
each breakage is undone after its tests; the checkout itself is never changed. A breakage of
js/ rebuilds the copy's bundles first, and one of the native search (search-rs/src/) whose tests
are Python's, not only the crate's own, builds the copy's own module. Output: one line per
breakage, then a Markdown table (for docs/testing.md)."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from metapvp.tests.checkout import copy_checkout

ROOT = Path(__file__).resolve().parents[1]
MUTATIONS = ROOT / "scripts" / "mutations.yml"
CRATE = "search-rs/src/"
CRATES_OWN = "metapvp.tests.test_native_search.NativeSearchTest.test_the_crates_own_tests_pass"   # cargo test
MODULE = "metapvp_search.abi3.so"   # found in the copy, first on its path, before the installed one


def load(path: Path = MUTATIONS) -> list[dict]:
    entries = yaml.safe_load(path.read_text())
    for i, m in enumerate(entries):
        missing = {"name", "file", "find", "replace", "tests"} - set(m)
        if missing:
            raise SystemExit(f"{path}: entry {i + 1} lacks {', '.join(sorted(missing))}")
        text = (ROOT / m["file"]).read_text()
        if text.count(m["find"]) != 1:
            raise SystemExit(f"{path}: entry {i + 1} ({m['name']}): its `find` occurs {text.count(m['find'])} "
                             f"times in {m['file']}, not once (the code moved: update the entry)")
    return entries


def copy_built_checkout(dest: Path):
    """The tracked files, with this checkout's node modules and bundles (nothing to rebuild)."""
    copy_checkout(dest)
    (dest / "js" / "node_modules").symlink_to(ROOT / "js" / "node_modules")
    shutil.copytree(ROOT / "build", dest / "build", ignore=shutil.ignore_patterns("bundle.stamp"))


def build_module(copy: Path):
    """The copy's metapvp_search, built from its crate as it is now and put at the copy's root."""
    subprocess.run(["cargo", "build", "--release", "--features", "python"], cwd=copy / "search-rs", check=True,
                   capture_output=True)
    shutil.copy(copy / "search-rs" / "target" / "release" / "libmetapvp_search.so", copy / MODULE)


def run_tests(copy: Path, tests: list[str]) -> tuple[bool, list[str]]:
    """-> (every test passed, the tests that failed by name, "(raised)" after those that raised
    rather than failed an assertion: a breakage that only makes a test raise may be caught by
    accident, so the table says so)."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    out = subprocess.run([sys.executable, "-m", "nose2", "-s", str(copy), *tests], cwd=copy, env=env,
                         capture_output=True, text=True, timeout=1200)
    failed = sorted({line.split(" ", 2)[1] + (" (raised)" if line.startswith("ERROR") else "")
                     for line in (out.stdout + out.stderr).splitlines()
                     if line.startswith(("FAIL: ", "ERROR: ")) and len(line.split(" ", 2)) > 1})
    return out.returncode == 0, failed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", default=[],
                    help="only the breakages whose name contains this text (repeat for several)")
    ap.add_argument("--keep", action="store_true", help="keep the copy (its path is printed)")
    args = ap.parse_args()
    entries = [m for m in load() if not args.only or any(text in m["name"] for text in args.only)]
    copy = Path(tempfile.mkdtemp(prefix="metapvp-mutate-"))
    rows, missed = [], []
    try:
        copy_built_checkout(copy)
        seen = subprocess.run([sys.executable, "-c", "import metapvp; print(metapvp.ROOT)"], cwd=copy,
                              env={**os.environ, "PYTHONPATH": str(copy)}, capture_output=True, text=True).stdout
        if Path(seen.strip()) != copy:
            raise SystemExit(f"the copy imports metapvp from {seen.strip()}, not from {copy}")
        ok, failed = run_tests(copy, ["metapvp.tests.test_structure"])
        if not ok:
            raise SystemExit(f"the unbroken copy fails its tests: {failed}")
        for m in entries:
            target = copy / m["file"]
            original = target.read_text()
            target.write_text(original.replace(m["find"], m["replace"], 1))
            start = time.perf_counter()
            try:
                if m["file"].startswith("js/"):
                    subprocess.run([str(copy / "scripts" / "compile-headless-client.sh")], cwd=copy, check=True,
                                   capture_output=True)
                if m["file"].startswith(CRATE) and any(t != CRATES_OWN for t in m["tests"]):
                    build_module(copy)
                passed, failed = run_tests(copy, m["tests"])
            finally:
                target.write_text(original)
                (copy / MODULE).unlink(missing_ok=True)
                if m["file"].startswith("js/"):
                    subprocess.run([str(copy / "scripts" / "compile-headless-client.sh")], cwd=copy, check=True,
                                   capture_output=True)
            verdict = "MISSED" if passed else "caught"
            seconds = time.perf_counter() - start
            print(f"{verdict:6}  {m['name']}  ({seconds:.0f} s): {', '.join(failed) or 'no test failed'}",
                  flush=True)
            rows.append((m, verdict, failed))
            if passed:
                missed.append(m["name"])
    finally:
        if args.keep:
            print(f"the copy: {copy}")
        else:
            shutil.rmtree(copy, ignore_errors=True)
    print("\n| breakage | file | failing tests | verdict |\n|---|---|---|---|")
    for m, verdict, failed in rows:
        names = ", ".join(f"`{name}`{mark and ' ' + mark}" for name, _, mark in (t.partition(" ") for t in failed))
        print(f"| {m['name']} | `{m['file']}` | {names or '—'} | {verdict} |")
    print(f"\n{len(rows) - len(missed)} of {len(rows)} breakages caught")
    if missed:
        print("missed: " + "; ".join(missed), file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

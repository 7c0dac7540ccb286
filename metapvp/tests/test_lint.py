"""The linters pass on the tree: ruff on the Python (its rules in pyproject.toml), eslint on
js/ (js/eslint.config.js), rustfmt and clippy on search-rs/ (search-rs/rustfmt.toml). Run them
alone with `./rp -m ruff check .`, `(cd js && node_modules/.bin/eslint .)` and
`(cd search-rs && cargo fmt --check && cargo clippy --all-targets --all-features -- -D warnings)`."""
import shutil
import subprocess
import sys
import unittest

from metapvp import ROOT


class LintTest(unittest.TestCase):
    def test_ruff(self):
        proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_eslint(self):
        proc = subprocess.run([str(ROOT / "js" / "node_modules" / ".bin" / "eslint"), "."], cwd=ROOT / "js",
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    @unittest.skipUnless(shutil.which("cargo"), "no cargo here: the crate is not built, nor linted")
    def test_rustfmt(self):
        proc = subprocess.run(["cargo", "fmt", "--check"], cwd=ROOT / "search-rs", capture_output=True, text=True,
                              timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-3000:])


class ClippyTest(unittest.TestCase):
    """clippy compiles the crate's dependencies for checking (a minute on a fresh clone): in the
    full suite, not the fast tier."""

    @unittest.skipUnless(shutil.which("cargo"), "no cargo here: the crate is not built, nor linted")
    def test_clippy(self):
        proc = subprocess.run(["cargo", "clippy", "--release", "--all-targets", "--all-features", "--quiet", "--",
                               "-D", "warnings"], cwd=ROOT / "search-rs", capture_output=True, text=True, timeout=900)
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-3000:])


if __name__ == "__main__":
    unittest.main()

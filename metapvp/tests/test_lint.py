"""The linters pass on the tree: ruff on the Python (its rules in pyproject.toml) and eslint on
js/ (js/eslint.config.js). Run them alone with `./rp -m ruff check .` and
`(cd js && node_modules/.bin/eslint .)`."""
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


if __name__ == "__main__":
    unittest.main()

"""scripts/install.sh, which ./rp runs before every command: each step's stamp lives beside
what the step made, so a checkout mounted over another (the Docker image's /workspace) reuses
the environment it finds and builds only what it lacks, with no network for what it has; a
Node too old for js/ is named, not met with a failure deep inside npm."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from metapvp import ROOT
from metapvp.tests.checkout import copy_checkout


def script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


class InstallTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="metapvp-install-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.checkout = self.tmp / "workspace"
        copy_checkout(self.checkout)
        # the image's venv, as the install left it: its stamp, and a python that fails loudly if
        # the Python step runs at all (it must not touch the real environment)
        self.venv = self.tmp / "venv"
        script(self.venv / "bin" / "python", "echo 'the Python step ran' >&2; exit 3")
        shutil.copy(Path(sys.prefix) / ".metapvp-stamp", self.venv / ".metapvp-stamp")
        search_stamp = Path(sys.prefix) / ".metapvp-search-stamp"   # the native search's step
        if search_stamp.exists():
            shutil.copy(search_stamp, self.venv / search_stamp.name)

    def install(self, path_first: Path | None = None) -> subprocess.CompletedProcess:
        env = {**os.environ, "METAPVP_VENV": str(self.venv)}
        env.pop("METAPVP_REBUILD", None)
        if path_first:
            env["PATH"] = f"{path_first}:{env['PATH']}"
        return subprocess.run([str(self.checkout / "scripts" / "install.sh")], env=env, capture_output=True,
                              text=True, timeout=600)

    def test_a_checkout_with_everything_built_starts_at_once(self):
        (self.checkout / "js" / "node_modules").symlink_to(ROOT / "js" / "node_modules")
        shutil.copytree(ROOT / "build", self.checkout / "build")
        out = self.install()
        self.assertEqual((out.returncode, out.stderr), (0, ""))

    def test_a_checkout_without_the_bundle_builds_only_the_bundle(self):
        (self.checkout / "js" / "node_modules").symlink_to(ROOT / "js" / "node_modules")
        out = self.install()
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn("bundling build/engine.js", out.stderr)
        self.assertNotIn("creating", out.stderr)
        self.assertNotIn("npm ci", out.stderr)
        for bundle in ("engine.js", "checks.js"):
            self.assertGreater((self.checkout / "build" / bundle).stat().st_size, 10_000_000, bundle)
        self.assertEqual(self.install().stderr, "")  # and now it is fresh

    def test_without_rust_the_set_up_goes_on_and_says_so_once(self):
        """No cargo on the PATH: the native search's step is skipped with one message naming what
        to install; the next run says nothing (and the Python step never runs)."""
        (self.checkout / "js" / "node_modules").symlink_to(ROOT / "js" / "node_modules")
        shutil.copytree(ROOT / "build", self.checkout / "build")
        (self.venv / ".metapvp-search-stamp").unlink(missing_ok=True)
        no_cargo = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep)
                                   if d and not (Path(d) / "cargo").exists())
        env = {**os.environ, "METAPVP_VENV": str(self.venv), "PATH": no_cargo}
        env.pop("METAPVP_REBUILD", None)
        runs = [subprocess.run([str(self.checkout / "scripts" / "install.sh")], env=env, capture_output=True,
                               text=True, timeout=600) for _ in range(2)]
        self.assertEqual([r.returncode for r in runs], [0, 0], runs[0].stderr)
        self.assertIn("no Rust toolchain (cargo): the native search (search-rs/) is not built", runs[0].stderr)
        self.assertIn("Install Rust (rustup)", runs[0].stderr)
        self.assertEqual(runs[1].stderr, "")
        self.assertNotIn("Python step ran", runs[0].stderr)

    def test_a_node_too_old_is_named(self):
        bin_dir = self.tmp / "old-node"
        script(bin_dir / "node", 'case "$1" in --version) echo v18.19.0 ;; *) echo 18 ;; esac')
        script(bin_dir / "npm", "echo 'npm ran' >&2; exit 3")
        out = self.install(path_first=bin_dir)
        self.assertEqual(out.returncode, 1)
        self.assertIn("Node.js 20 or newer is needed for js/ (found: v18.19.0)", out.stderr)
        self.assertNotIn("npm ran", out.stderr)
        self.assertNotIn("Python step ran", out.stderr)


if __name__ == "__main__":
    unittest.main()

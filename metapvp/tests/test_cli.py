"""The `metapvp` command (metapvp/exe/cli.py): installed as a console script beside the venv's
Python, its subcommands are the command lines of metapvp/exe/, and a command line that names
none is answered with the list of them."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from metapvp import ROOT
from metapvp.exe.cli import COMMANDS, RUNS


def metapvp(*args, timeout=300):
    env = {**os.environ, "METAPVP_SKIP_INSTALL": "1"}   # ./rp brought it up to date already
    return subprocess.run([str(Path(sys.executable).parent / "metapvp"), *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=timeout)


class CommandTest(unittest.TestCase):
    def test_every_subcommand_is_a_command_line_with_its_own_help(self):
        for name in list(COMMANDS) + [f"runs {r}" for r in RUNS]:
            with self.subTest(subcommand=name):
                proc = metapvp(*name.split(), "--help", timeout=120)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertIn(f"usage: metapvp {name}", proc.stdout)

    def test_a_command_line_without_a_subcommand_lists_them(self):
        proc = metapvp("--help")
        self.assertEqual(proc.returncode, 0)
        for name in COMMANDS:
            self.assertIn(name, proc.stdout)
        for args, said in [((), "name a subcommand"), (("play",), "no subcommand 'play'"),
                           (("runs", "merge"), "name one of pool, compare, average, not 'merge'")]:
            with self.subTest(args=args):
                proc = metapvp(*args)
                self.assertEqual(proc.returncode, 2)
                self.assertIn(said, proc.stderr)
                self.assertIn("head2head", proc.stderr)

    def test_head2head_and_runs_pool_play_and_add_up(self):
        with tempfile.TemporaryDirectory() as out:
            proc = metapvp("head2head", "--p1", "maxdamage", "--p2", "random", "--num-matches", "4", "--workers", "1",
                           "--outdir", out, "--quiet")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            result = json.loads(proc.stdout.splitlines()[-1])
            self.assertEqual((result["matches"], result["errors"]), (4, 0))
            proc = metapvp("runs", "pool", out, out)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(json.loads(proc.stdout.splitlines()[-1])["matches"], 8)
            proc = metapvp("head2head", "--p1", "nobody", "--p2", "random", "--num-matches", "1")
            self.assertEqual(proc.returncode, 2)
            self.assertIn("nobody", proc.stderr)


if __name__ == "__main__":
    unittest.main()

"""A copy of this checkout's tracked files, as a fresh clone (or a mount) would have them: for
tests of the set-up (test_install.py) and for scripts/mutate.py, which breaks code in a copy."""
import shutil
import subprocess
from pathlib import Path

from metapvp import ROOT


def copy_checkout(dest: Path):
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)

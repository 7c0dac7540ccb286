"""`python -m metapvp SUBCOMMAND ...` (or `./rp -m metapvp ...`): the `metapvp` command."""
import sys

from metapvp.exe.cli import main

sys.exit(main())

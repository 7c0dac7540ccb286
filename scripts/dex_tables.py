"""Writes contracts/tables/NAME.json for each contract named (default: every contract): the move
table and type chart along its vocabularies, computed by the bundle from the pinned simulator's
dex (js/src/dextables.js). Rerun it after changing a vocabulary, the table columns or the
simulator's version; tests/test_contract.py fails while a file is out of date.

    ./rp scripts/dex_tables.py [NAME ...]"""
import json
import sys

from metapvp.contract import CONTRACTS, TABLES, load
from metapvp.engine import context


def main(names):
    TABLES.mkdir(parents=True, exist_ok=True)
    for name in names or sorted(p.stem for p in CONTRACTS.glob("*.json")):
        path = TABLES / f"{name}.json"
        path.write_text(json.dumps(context(load(name)).dex_tables(), separators=(",", ":")) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])

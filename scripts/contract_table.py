"""Prints a contract's features and action heads as Markdown tables (for the README).

    ./rp scripts/contract_table.py [singles-v1]"""
import sys

from metapvp.contract import load


def main():
    c = load(sys.argv[1] if len(sys.argv) > 1 else "singles-v1")
    print(f"Contract `{c.name}`: {len(c.features)} features, {c.record_bytes} bytes a record, "
          f"hash `{c.hash[:16]}`.\n")
    print("| feature | dtype | shape | vocabulary | meaning |")
    print("|---|---|---|---|---|")
    for f in c.features:
        vocab = f"{f.vocab} ({len(c.vocabs[f.vocab])})" if f.vocab else ""
        print(f"| `{f.name}` | {f.dtype.name} | {list(f.shape)} | {vocab} | {f.norm} |")
    print("\n| action head | size | values |")
    print("|---|---|---|")
    for h in c.spec["actions"]["heads"]:
        print(f"| {h['name']} | {h['size']} | {', '.join(h['values'])} |")


if __name__ == "__main__":
    main()

"""Prints a contract's features and action heads as Markdown tables (for docs/contract.md).

    ./rp scripts/contract_table.py [singles-v1] [--since OTHER]

--since OTHER prints only the features OTHER lacks (and no action heads)."""
import argparse

from metapvp.contract import load


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("contract", nargs="?", default="singles-v1")
    ap.add_argument("--since", help="print only the features this contract lacks")
    args = ap.parse_args()
    c = load(args.contract)
    old = set(load(args.since).by_name) if args.since else set()
    print(f"Contract `{c.name}`: {len(c.features)} features, {c.record_bytes} bytes a record, "
          f"hash `{c.hash[:16]}`" + (f" (also accepts models recorded as `{', '.join(h[:16] for h in c.hash_aliases)}`)"
                                     if c.hash_aliases else "") + ".\n")
    print("| feature | dtype | shape | vocabulary | columns | meaning |")
    print("|---|---|---|---|---|---|")
    for f in c.features:
        if f.name in old:
            continue
        vocab = f"{f.vocab} ({len(c.vocabs[f.vocab])})" if f.vocab else ""
        print(f"| `{f.name}` | {f.dtype.name} | {list(f.shape)} | {vocab} | {', '.join(f.columns)} | {f.norm} |")
    if args.since:
        return
    print("\n| action head | size | values |")
    print("|---|---|---|")
    for h in c.spec["actions"]["heads"]:
        print(f"| {h['name']} | {h['size']} | {', '.join(h['values'])} |")


if __name__ == "__main__":
    main()

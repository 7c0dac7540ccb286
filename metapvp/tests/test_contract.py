"""The environment contract: layout, vocabularies, hash, and agreement between Python and JS."""
import json
import unittest

import numpy as np

from metapvp.contract import CONTRACTS, Contract, ContractError, load
from metapvp.engine import context


class ContractTest(unittest.TestCase):
    def test_python_and_js_agree_on_the_layout(self):
        c = load()
        info = json.loads(context().eval(f"metapvp.init({c.js_args()})"))
        self.assertEqual(info["recordBytes"], c.record_bytes)
        self.assertEqual([(f["name"], f["offset"]) for f in info["features"]],
                         [(f.name, f.offset) for f in c.features])
        self.assertEqual(info["numActions"], c.num_actions)

    def test_offsets_are_aligned_and_disjoint(self):
        c = load()
        end = 0
        for f in c.features:
            self.assertEqual(f.offset % 4, 0, f.name)
            self.assertGreaterEqual(f.offset, end, f.name)
            end = f.offset + f.nbytes
        self.assertLessEqual(end, c.record_bytes)

    def test_views_share_memory(self):
        c = load()
        buf = bytearray(c.record_bytes * 3)
        views = c.views(memoryview(buf), 3)
        views["pokemon.species"][2, 1, 4] = 25
        f = c.by_name["pokemon.species"]
        at = 2 * c.record_bytes + f.offset + (1 * 6 + 4) * 4
        self.assertEqual(int.from_bytes(buf[at:at + 4], "little"), 25)
        self.assertEqual(views["pokemon.moves"].shape, (3, 2, 6, 4))

    def test_vocabularies_reserve_ids(self):
        c = load()
        for name, ids in c.vocabs.items():
            self.assertEqual(ids[:3], ["<none>", "<unknown>", "<other>"], name)
            self.assertEqual(len(ids), len(set(ids)), f"{name} has duplicates")
        species = c.vocab_index("species")
        for s in ("pikachu", "zoroarkhisui", "charizardmegax", "calyrexshadow", "urshifurapidstrike"):
            self.assertIn(s, species)

    def test_hash_is_stable_and_content_sensitive(self):
        c = load()
        again = Contract(json.loads(json.dumps(c.spec)), c.vocabs)
        self.assertEqual(again.hash, c.hash)
        changed = json.loads(json.dumps(c.spec))
        changed["features"][1]["norm"] = "something else"
        self.assertNotEqual(Contract(changed, c.vocabs).hash, c.hash)

    def test_bad_contracts_are_named(self):
        with self.assertRaises(ContractError) as cm:
            load("no-such-contract")
        self.assertIn("singles-v1", str(cm.exception))
        spec = json.loads((CONTRACTS / "singles-v1.json").read_text())
        spec["features"][0]["dtype"] = "complex128"
        with self.assertRaises(ContractError) as cm:
            Contract(spec, load().vocabs, "test.json")
        self.assertIn("battle.gen", str(cm.exception))
        spec = json.loads((CONTRACTS / "singles-v1.json").read_text())
        del spec["actions"]
        with self.assertRaises(ContractError) as cm:
            Contract(spec, load().vocabs, "test.json")
        self.assertIn("test.json", str(cm.exception))

    def test_action_space(self):
        c = load()
        self.assertEqual(c.head_sizes, (10, 6))
        self.assertEqual(c.num_actions, 60)
        self.assertEqual(c.by_name["action.mask"].shape, (60,))
        self.assertEqual(c.by_name["action.mask"].dtype, np.uint8)


if __name__ == "__main__":
    unittest.main()


class DexTablesTest(unittest.TestCase):
    def test_each_contracts_tables_are_the_bundles(self):
        """contracts/tables/NAME.json (what a network is built from, without V8) equals what the
        bundle computes from the pinned dex: rerun scripts/dex_tables.py when this fails."""
        for name in sorted(p.stem for p in CONTRACTS.glob("*.json")):
            with self.subTest(contract=name):
                self.assertEqual(load(name).dex_tables(), context(load(name)).dex_tables())

    def test_a_network_is_built_without_starting_v8(self):
        import subprocess
        import sys
        code = ("import metapvp.engine.v8 as v8\n"
                "from metapvp.models import new_model\n"
                "from metapvp.contract import load\n"
                "m = new_model(load('singles-v2'))\n"
                "print(len(v8.contexts()), float(m.move_table.abs().sum()))\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        contexts, table = out.stdout.split()
        self.assertEqual(contexts, "0")
        self.assertGreater(float(table), 0)   # the dex's table, not the zeros of an empty one

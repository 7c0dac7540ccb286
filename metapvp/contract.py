"""The environment contract (contracts/environments/*.json), read the same way the JS encoder
reads it: the observation layout, the vocabularies, the action heads, and a content hash that
models record so that they never run on a layout they were not trained on."""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from metapvp import ROOT

CONTRACTS = ROOT / "contracts" / "environments"
TABLES = ROOT / "contracts" / "tables"   # dex tables along each contract's vocabularies
DEFAULT = "singles-v1"
DOUBLES = "doubles-v1"
# Showdown's doubles formats by name: random doubles, VGC, 2v2 and the other doubles ladders
# (a contract of the wrong game type is refused by the encoder, naming both)
DOUBLES_FORMAT = re.compile(r"doubles|vgc|2v2")
RESERVED = {"<none>": 0, "<unknown>": 1, "<other>": 2}
_DTYPES = {"int32": np.dtype("<i4"), "float32": np.dtype("<f4"), "uint8": np.dtype("u1")}


class ContractError(ValueError):
    """A contract file that is missing, malformed or inconsistent."""


@dataclass(frozen=True)
class Feature:
    name: str
    dtype: np.dtype
    shape: tuple
    offset: int
    entity: str
    side: str
    vocab: str | None
    norm: str
    columns: tuple = ()   # names of the last dimension's entries, where the contract gives them

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * self.dtype.itemsize


class Contract:
    def __init__(self, spec: dict, vocabs: dict[str, list[str]], source: str = "<dict>"):
        self.spec = spec
        self.source = source
        try:
            self.name = spec["name"]
            self.vocabs = vocabs
            self.features = _layout(spec["features"], vocabs, source)
            heads = spec["actions"]["heads"]
            self.head_sizes = tuple(h["size"] for h in heads)
            # the battles it encodes, by its action table (js/src/actiontable.js)
            self.game_type = spec["actions"].get("table", "singles")
        except (KeyError, TypeError) as e:
            raise ContractError(f"{source}: missing or malformed field {e}") from e
        last = self.features[-1]
        self.record_bytes = _align4(last.offset + last.nbytes)
        self.num_actions = int(np.prod(self.head_sizes))
        self.by_name = {f.name: f for f in self.features}
        self.tables = spec.get("tables", {})
        self.hash_aliases = tuple(spec.get("hash_aliases", {}))
        canonical = json.dumps({"contract": spec, "vocabularies": vocabs}, sort_keys=True,
                               separators=(",", ":"), ensure_ascii=True)
        self.hash = hashlib.sha256(canonical.encode()).hexdigest()

    def accepts(self, model_hash: str) -> bool:
        """Whether a model recorded with `model_hash` reads this contract's records: its own hash,
        or one the contract lists as the same layout under an older text."""
        return model_hash == self.hash or model_hash in self.hash_aliases

    def dex_tables(self) -> dict:
        """{moves: a row of `tables.moves.columns` per move id, typeChart: [attacking][defending]
        multiplier} along this contract's vocabularies, from contracts/tables/NAME.json: made from
        the pinned simulator's dex by scripts/dex_tables.py (js/src/dextables.js), so that building
        a network needs no V8; tests/test_contract.py checks the file against the bundle."""
        path = TABLES / f"{self.name}.json"
        try:
            return json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise ContractError(f"contract {self.name}: no dex tables in {path} ({e}); "
                                f"write them with ./rp scripts/dex_tables.py {self.name}") from None

    def column(self, feature: str, name: str) -> int:
        """Index of the column `name` in the last dimension of `feature`: code reads columns by
        name, so a reordered contract is read correctly and a renamed one fails here, loudly."""
        f = self.by_name.get(feature)
        if f is None:
            raise ContractError(f"{self.source}: contract {self.name} has no feature {feature!r}")
        if name not in f.columns:
            raise ContractError(f"{self.source}: feature {feature} has no column {name!r} "
                                f"(its columns: {', '.join(f.columns) or 'none named'})")
        return f.columns.index(name)

    def table_column(self, table: str, name: str) -> int:
        """Index of column `name` of static table `table` (e.g. the move table of dextables.js)."""
        columns = self.tables.get(table, {}).get("columns", [])
        if name not in columns:
            raise ContractError(f"{self.source}: table {table!r} has no column {name!r} "
                                f"(its columns: {', '.join(columns) or 'none'})")
        return columns.index(name)

    def vocab_index(self, vocab: str) -> dict[str, int]:
        return {v: i for i, v in enumerate(self.vocabs[vocab])}

    def views(self, buffer, count: int, start: int = 0) -> dict[str, np.ndarray]:
        """Typed numpy views, one per feature, over `count` records of `buffer` from record
        `start`: shape (count, *feature.shape), sharing memory with the buffer (no copy)."""
        out = {}
        for f in self.features:
            inner = [f.dtype.itemsize]
            for dim in reversed(f.shape[1:]):
                inner.insert(0, inner[0] * dim)
            out[f.name] = np.ndarray((count, *f.shape), dtype=f.dtype, buffer=buffer,
                                     offset=start * self.record_bytes + f.offset,
                                     strides=(self.record_bytes, *inner))
        return out

    def js_args(self) -> str:
        """The contract and its vocabularies as the two JSON arguments of metapvp.init."""
        return f"{json.dumps(self.spec)}, {json.dumps(self.vocabs)}"


def _align4(n: int) -> int:
    return (n + 3) & ~3


def _layout(specs: list, vocabs: dict, source: str) -> list[Feature]:
    features, offset = [], 0
    for f in specs:
        dtype = _DTYPES.get(f["dtype"])
        if dtype is None:
            raise ContractError(f"{source}: feature {f['name']} has unknown dtype {f['dtype']!r}")
        vocab = f.get("vocab")
        if vocab is not None and vocab not in vocabs:
            raise ContractError(f"{source}: feature {f['name']} names unknown vocabulary {vocab!r}")
        shape = tuple(int(d) for d in f["shape"])
        if vocab and f["dtype"] == "float32" and shape[-1] != len(vocabs[vocab]):
            raise ContractError(f"{source}: feature {f['name']} is {shape[-1]} wide but vocabulary "
                                f"{vocab!r} has {len(vocabs[vocab])} entries")
        columns = tuple(f.get("columns", ()))
        if columns and (len(columns) != shape[-1] or len(set(columns)) != len(columns)):
            raise ContractError(f"{source}: feature {f['name']} names {len(columns)} columns "
                                f"({', '.join(columns)}) for a last dimension of {shape[-1]}, "
                                f"or names one twice")
        offset = _align4(offset)
        feat = Feature(f["name"], dtype, shape, offset, f.get("entity", ""), f.get("side", ""),
                       vocab, f.get("norm", ""), columns)
        features.append(feat)
        offset += feat.nbytes
    return features


def for_format(fmt: str) -> str:
    """The contract battles of format `fmt` are encoded with where no player needs one in
    particular: doubles-v1 for doubles formats, singles-v1 for the rest."""
    return DOUBLES if DOUBLES_FORMAT.search(fmt) else DEFAULT


@cache
def load(name: str = DEFAULT) -> Contract:
    """Loads a contract by name (contracts/environments/NAME.json) or by path."""
    path = Path(name) if name.endswith(".json") else CONTRACTS / f"{name}.json"
    if not path.is_file():
        known = sorted(p.stem for p in CONTRACTS.glob("*.json"))
        raise ContractError(f"no contract {name!r} (known: {', '.join(known)})")
    try:
        spec = json.loads(path.read_text())
        vocabs = {}
        for vname, vpath in spec["vocabularies"].items():
            vocabs[vname] = json.loads((ROOT / vpath).read_text())
    except (OSError, json.JSONDecodeError, KeyError) as e:
        raise ContractError(f"{path}: {e}") from e
    for vname, ids in vocabs.items():
        for token, index in RESERVED.items():
            if ids[index] != token:
                raise ContractError(f"{path}: vocabulary {vname!r} must start with {list(RESERVED)}")
    return Contract(spec, vocabs, str(path))

"""The native search (search-rs/: Rust, on poke-engine), where the set-up built it: a search of
both sides choosing at once on one poke-engine state, ~10^5 iterations a second on a core, with
the GIL released while it runs. scripts/install.sh builds it into the venv when cargo is there;
without a Rust toolchain it is absent, and `native()` says how to get it.

    from metapvp.engine.native import native
    m = native()
    m.search(m.example_state(), iterations=10_000, seed=1)   # {s1, s2: {options, visits, values}, ...}"""
from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

try:
    import metapvp_search as _module
except ImportError:   # no Rust toolchain when the environment was set up
    _module = None


class NativeSearchMissing(RuntimeError):
    """The native search was not built here."""


def available() -> bool:
    return _module is not None


def native():
    """The built module (metapvp_search); NativeSearchMissing where the set-up had no Rust."""
    if _module is None:
        raise NativeSearchMissing("the native search (search-rs/) is not built: install Rust (rustup, so that "
                                  "cargo is on the PATH) and run ./rp again, which builds it")
    return _module


LEARNED_VALUE = Path(__file__).resolve().parents[2] / "static" / "models" / "native-value.json"
"""The learned leaf value the native search ships with, fitted to battles' outcomes
(`metapvp fit-leaf` fits it)."""
SEARCH_VALUE = LEARNED_VALUE.with_name("native-value-search.json")
"""The relative leaf value the native search ships with, fitted to the search's own values of
positions (metapvp fit-leaf --target search)."""


class LeafValue(NamedTuple):
    """A learned leaf value as the search takes it: `weights` (one per feature_names()), whether
    it is `relative` (fitted to the search's own values: a leaf is worth its lead over the root's),
    and its `hidden` layer, (rows, out) or None."""
    weights: list[float]
    relative: bool
    hidden: tuple[list[list[float]], list[float]] | None = None

    def search_args(self) -> dict:
        """The arguments of native().search() that value the leaves by this model."""
        return {"leaf": self.weights, "leaf_relative": self.relative, "leaf_hidden": self.hidden}


VALUE_NETWORK = "metapvp-engine-value"
"""The `format` of a value network's file (the value.json `metapvp fit-value` writes)."""


def is_value_network(path: Path) -> bool:
    """Whether `path` holds a value network (for the search's `value=`) rather than a leaf model."""
    try:
        with open(path, "rb") as f:
            head = f.read(200)
    except OSError:
        return False
    return f'"format":"{VALUE_NETWORK}"'.encode() in head


def leaf_model(path: Path = LEARNED_VALUE) -> LeafValue:
    """The learned leaf value written by `metapvp fit-leaf`. Its weights are read by feature
    name into feature_names()' order: a feature the model was fitted without weighs 0, so a model
    keeps working when features are added. ValueError names the file and what is wrong with it."""
    try:
        model = json.loads(Path(path).read_text())
        names, weights = list(model["features"]), [float(w) for w in model["weights"]]
        relative = model.get("relative", False)
        hidden = model.get("hidden")
        rows, out = (None, None) if hidden is None else (
            [[float(w) for w in row] for row in hidden["rows"]], [float(w) for w in hidden["out"]])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"leaf value {path}: not a model written by `metapvp fit-leaf` ({e})") from None
    computed = native().feature_names()
    unknown = [n for n in names if n not in computed]
    if (unknown or len(set(names)) != len(names) or len(weights) != len(names)
            or (rows and any(len(row) != len(names) for row in rows))):
        raise ValueError(f"leaf value {path}: fitted on features {names} ({len(weights)} weights), but the native "
                         f"search computes {computed}; fit it again (metapvp fit-leaf --write)")
    if not isinstance(relative, bool):
        raise ValueError(f"leaf value {path}: 'relative' is true or false, not {relative!r}")
    if rows is not None and len(rows) != len(out):
        raise ValueError(f"leaf value {path}: {len(rows)} hidden rows with {len(out)} weights out")

    def by_name(values: list[float]) -> list[float]:
        given = dict(zip(names, values))
        return [given.get(n, 0.0) for n in computed]
    return LeafValue(by_name(weights), relative, None if rows is None else ([by_name(r) for r in rows], out))

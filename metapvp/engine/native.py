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
(studies/leaf_value.py fits it)."""
SEARCH_VALUE = LEARNED_VALUE.with_name("native-value-search.json")
"""The relative leaf value the native search ships with, fitted to the search's own values of
positions (studies/leaf_value.py --target search)."""


def leaf_model(path: Path = LEARNED_VALUE) -> tuple[list[float], bool]:
    """The weights of a learned leaf value written by studies/leaf_value.py, one per feature the
    built module computes (feature_names() order; a feature the model was fitted without weighs
    0, so a model keeps working when features are added), and whether it is relative (fitted to
    the search's own values: a leaf is worth its lead over the root's); ValueError names the file
    and what is wrong with it."""
    try:
        model = json.loads(Path(path).read_text())
        names, weights = list(model["features"]), [float(w) for w in model["weights"]]
        relative = model.get("relative", False)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"leaf value {path}: not a model written by studies/leaf_value.py ({e})") from None
    computed = native().feature_names()
    unknown = [n for n in names if n not in computed]
    if unknown or len(set(names)) != len(names) or len(weights) != len(names):
        raise ValueError(f"leaf value {path}: fitted on features {names} ({len(weights)} weights), but the native "
                         f"search computes {computed}; fit it again (studies/leaf_value.py --write)")
    if not isinstance(relative, bool):
        raise ValueError(f"leaf value {path}: 'relative' is true or false, not {relative!r}")
    by_name = dict(zip(names, weights))
    return [by_name.get(n, 0.0) for n in computed], relative

"""The search's settings, typed: one dataclass holds every setting of the decision-time search
(js/src/search.js, players/search.py), its defaults and its one validator. Python builds it;
JS receives `to_js()` as it is.

A spec names a setting in one of three ways (players/spec.py):

  search:MODEL                          the defaults below
  search(visits=128,worlds=4):MODEL     the defaults with the fields named changed
  search64x2h4q16p1:MODEL               the compact form results files record (`compact()`):
                                        visits (or Nms), xWORLDS, hHALVE, qWEIGHT, pPLAY_ON, s

`agent`'s own setting ships in its model file's metadata ("search"), not here.

The settings that were measured and not kept (the network's value in the leaves, the foe's
prior other than by damage, a root value moved to its worst reply, paired halving cycles, steady
chance, positions scored by worth) are gone from the code; each keeps its row in the table of
what was tried (docs/agent.md), and `RETIRED` names the commit that last had it, so that a spec
that names one gets a clear answer."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from metapvp.players.specerror import SpecError

SCRIPTED_PLAYERS = ("heuristic", "maxdamage")  # the scripted players whose picks can join our root

# The last commit that had the retired knobs, and each one's letter in the compact spec form.
RETIRED_AT = "fe5f9b4"
RETIRED = {
    "v": "the network's share of a leaf's value",
    "l": "the network's change in win log-odds added to material's",
    "f": "the foe's prior other than by damage (fu, fn, fh, fm)",
    "r": "a root value moved towards its worst reply",
    "c": "paired halving cycles (common random numbers)",
    "e": "steady chance (mean damage rolls, no critical hits)",
    "w": "positions scored by worth",
}


# A search setting out of its range, or a field the search does not have: a bad spec like any
# other (one error type for them all; the name stays for the settings' own callers).
SearchConfigError = SpecError


@dataclass(frozen=True)
class SearchConfig:
    visits: int = 64
    """Visits a decision (each a turn or more simulated from the root); 0 where `ms` is the
    budget. With a seed, a visit budget gives the same choice every time."""
    ms: int = 0
    """Milliseconds a decision instead of visits (0: the visit budget)."""
    worlds: int = 2
    """Worlds drawn from what the player cannot see (the foe's sets, its unseen Pokemon)."""
    halve: int = 4
    """Our root choices searched by sequential halving over this many of the policy's likeliest
    (0: by PUCT like every other node, the action kept by `weight`)."""
    weight: float = 16.0
    """The action kept: the highest log p + weight * searched value (0: the one visited most;
    halving needs it above 0)."""
    play_on: int = 1
    """Turns of both sides' hardest hits played past each new position before it is valued."""
    exploration: float = 1.5
    """PUCT's exploration constant at every node."""
    scripted: tuple[str, ...] = field(default=())
    """Scripted players whose choices join our root candidates, as likely as the policy's
    favourite (the compact form's `s`: both of SCRIPTED_PLAYERS)."""

    def __post_init__(self):
        object.__setattr__(self, "scripted", tuple(self.scripted))
        problems = []
        if not (0 <= self.visits <= 100_000 and 0 <= self.ms <= 100_000):
            problems.append(f"visits and ms each 0 to 100000 (got visits={self.visits}, ms={self.ms})")
        if bool(self.visits) == bool(self.ms):
            problems.append(f"a budget of visits or of ms, one of them (got visits={self.visits}, ms={self.ms})")
        if not 1 <= self.worlds <= 64:
            problems.append(f"worlds 1 to 64 (got {self.worlds})")
        if self.halve == 1 or not 0 <= self.halve <= 16:
            problems.append(f"halve 0 (none) or 2 to 16 candidates (got {self.halve})")
        if not 0 <= self.weight <= 1000:
            problems.append(f"weight 0 to 1000 (got {self.weight})")
        if self.halve and not self.weight > 0:
            problems.append("halving needs a weight above 0")
        if not 0 <= self.play_on <= 3:
            problems.append(f"play_on 0 to 3 turns (got {self.play_on})")
        if not 0 < self.exploration <= 100:
            problems.append(f"exploration above 0, at most 100 (got {self.exploration})")
        unknown = [s for s in self.scripted if s not in SCRIPTED_PLAYERS]
        if unknown:
            problems.append(f"scripted among {', '.join(SCRIPTED_PLAYERS)} (got {', '.join(unknown)})")
        if problems:
            raise SearchConfigError("search: " + "; ".join(problems))

    def to_js(self, seed: int = 0) -> dict:
        """What js/src/search.js takes: the budget and settings, with one search's seed."""
        return {"visits": self.visits, "ms": self.ms, "worlds": self.worlds, "halve": self.halve,
                "weight": self.weight, "play_on": self.play_on, "exploration": self.exploration, "seed": int(seed)}

    def to_dict(self) -> dict:
        """The fields as plain JSON values (for a model file's metadata)."""
        out = dataclasses.asdict(self)
        out["scripted"] = list(self.scripted)
        return out

    @classmethod
    def from_dict(cls, d: dict, where: str = "search settings") -> SearchConfig:
        """From to_dict()'s form; a field the search does not have is named, with `where`."""
        return settings_from_dict(cls, d, where)

    def compact(self) -> str:
        """The compact spec prefix, as results files record it: search64x2h4q16p1 (with `s`
        where both scripted players join the root)."""
        budget = f"{self.ms}ms" if self.ms else f"{self.visits}"
        text = f"search{budget}x{self.worlds}h{self.halve}q{self.weight:g}p{self.play_on}"
        if self.scripted == SCRIPTED_PLAYERS:
            return text + "s"
        if self.scripted or self.exploration != SearchConfig.exploration:
            return keyword_prefix(self)  # the compact form has no letter for these
        return text


def settings_from_dict(settings: type, d: dict, where: str):
    """The dataclass `settings` made of a model file's metadata entry (its to_dict() form);
    SearchConfigError names, with `where`, a field it does not have or a value out of range."""
    if not isinstance(d, dict):
        raise SearchConfigError(f"{where}: expected a mapping of search settings, got {type(d).__name__}")
    retired = getattr(settings, "retired", {})
    changed = [name for name in d if name in retired and d[name] != retired[name][0]]
    if changed:
        raise SearchConfigError(f"{where}: {retired_text(settings, changed)}")
    d = {name: value for name, value in d.items() if name not in retired}   # at the value every search had
    names = {f.name for f in dataclasses.fields(settings)}
    unknown = sorted(set(d) - names)
    if unknown:
        raise SearchConfigError(f"{where}: no search setting {', '.join(map(repr, unknown))} "
                                f"(settings: {', '.join(sorted(names))})")
    try:
        return settings(**d)
    except ValueError as e:
        raise SearchConfigError(f"{where}: {e}") from None


def retired_text(settings: type, names: list[str]) -> str:
    """Why the retired settings `names` of `settings` (its `retired` table: name -> (the value
    every search had, the row of docs/agent.md's table that measured it)) are refused."""
    rows = "; ".join(f"{n} ({settings.retired[n][1]})" for n in names)
    return (f"the native search no longer has {rows}: measured and not kept (docs/agent.md, 'What was tried "
            f"on the native search'; last in commit {getattr(settings, 'retired_at', '')})")


def keyword_prefix(config: SearchConfig) -> str:
    """search(field=value,...) naming the fields that differ from the defaults."""
    default = SearchConfig()
    parts = []
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if value != getattr(default, f.name):
            text = "+".join(value) if f.name == "scripted" else f"{value:g}" if isinstance(value, float) else value
            parts.append(f"{f.name}={text}")
    return f"search({','.join(parts)})" if parts else "search"


COMPACT = re.compile(r"search(?:(?P<budget>[0-9]+)(?P<ms>ms)?)?(?:x(?P<worlds>[0-9]+))?(?:h(?P<halve>[0-9]+))?"
                     r"(?:q(?P<weight>[0-9.]+))?(?:p(?P<play_on>[0-9]+))?(?P<scripted>s)?:")
KEYWORDS = re.compile(r"search\((?P<fields>[^()]*)\):")
# a search-like prefix: the letters the compact form ever had (not module.Class:path)
SEARCH_PREFIX = re.compile(r"search[0-9msxvlfudnhqrpcew.]*:")


def parse_prefix(spec: str) -> tuple[SearchConfig, int] | None:
    """The setting a spec's search prefix names and where the model after it starts; None where
    the spec has no search prefix; SearchConfigError for one that is malformed or names a
    retired knob."""
    m = KEYWORDS.match(spec)
    if m:
        return from_keywords(m["fields"], spec), m.end()
    m = COMPACT.match(spec)
    if m:
        return from_compact(m, spec), m.end()
    m = SEARCH_PREFIX.match(spec)
    if not m:
        return None
    letters = set(re.sub(r"[0-9.]", "", m.group(0)[len("search"):-1]))
    retired = [f"{k} ({RETIRED[k]})" for k in RETIRED if k in letters]
    if retired:
        raise SearchConfigError(
            f"player {spec!r}: the search no longer has {'; '.join(retired)}: measured and not kept "
            f"(docs/agent.md, 'What was tried on the search'; last in commit {RETIRED_AT})")
    raise SearchConfigError(f"player {spec!r}: a search is search:MODEL, search(field=value,...):MODEL or "
                            f"search[N|Nms][xW][hM][qQ][pP][s]:MODEL, its settings in that order, "
                            f"e.g. search64x2h4q16p1:agent")


def from_compact(m: re.Match, spec: str) -> SearchConfig:
    budget = int(m["budget"]) if m["budget"] else SearchConfig.visits
    fields = {"visits": 0 if m["ms"] else budget, "ms": budget if m["ms"] else 0}
    for name, cast in (("worlds", int), ("halve", int), ("weight", float), ("play_on", int)):
        if m[name]:
            fields[name] = _number(m[name], cast, name, spec)
    if m["scripted"]:
        fields["scripted"] = SCRIPTED_PLAYERS
    return _build(fields, spec)


def from_keywords(text: str, spec: str) -> SearchConfig:
    """search(visits=128,worlds=4): fields by name; scripted names players joined by '+'."""
    fields = keyword_fields(text, SearchConfig, spec)
    if "ms" in fields and "visits" not in fields:
        fields["visits"] = 0
    return _build(fields, spec)


def keyword_fields(text: str, settings: type, spec: str) -> dict:
    """The name=value pairs of a spec's parentheses ("visits=128,worlds=4"), each typed by the
    dataclass `settings`' field of that name (a tuple field takes names joined by '+', a str
    field the text as it is).
    SearchConfigError names a pair that is not name=value, a name `settings` lacks, or a value
    that is not a number."""
    types = {f.name: f.type for f in dataclasses.fields(settings)}
    fields = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = (s.strip() for s in item.partition("="))
        if not eq:
            raise SearchConfigError(f"player {spec!r}: {item!r} is not field=value")
        if name in getattr(settings, "retired", {}):
            raise SearchConfigError(f"player {spec!r}: {retired_text(settings, [name])}")
        if name not in types:
            raise SearchConfigError(f"player {spec!r}: no setting {name!r} (settings: {', '.join(types)})")
        if types[name].startswith("tuple"):
            fields[name] = tuple(filter(None, value.split("+")))
        elif types[name] == "str":
            fields[name] = value
        else:
            fields[name] = _number(value, float if types[name] == "float" else int, name, spec)
    return fields


def _build(fields: dict, spec: str) -> SearchConfig:
    try:
        return SearchConfig(**fields)
    except SearchConfigError as e:
        raise SearchConfigError(f"player {spec!r}: {e}") from None


def _number(text: str, cast, name: str, spec: str):
    try:
        return cast(text)
    except ValueError:
        kind = "a whole number" if cast is int else "a number"
        raise SearchConfigError(f"player {spec!r}: {name}={text!r} is not {kind}") from None

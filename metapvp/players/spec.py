"""Player specs, as given on command lines:

  random | first | maxdamage | heuristic   a built-in baseline
  mcts | mcts(iterations=N,worlds=W)        the native search (search-rs/, on poke-engine) with
                                            no network: gen 9 singles (metapvp.players.native);
                                            leaf=learned values its leaves by the learned value,
                                            search=poke-engine runs poke-engine's own MCTS
  native:MODEL | native(iterations=N,worlds=W):MODEL
                                            the model guiding the native search (10,000
                                            iterations in each of 2 worlds unless told)
  agent | agent:FORMAT                      the trained model shipped for the format played
                                            (or FORMAT): static/models/FORMAT.zip, guiding a
                                            search at the setting its metadata names
                                            (in gen 9 singles the native search,
                                            falling back to search64x2h4q16p1:agent
                                            where it is not built; in doubles
                                            search64x2h8q16p1s:agent); agent@0
                                            takes its most probable action, agent@1 samples
  module.Class:path/to/weights              Class(path) from an importable module (trained policies)
  ,module.factory                           factory() from an importable module
  path/to/model.zip                         a saved model (metapvp.models)
  MODEL+MODEL...                            models (files or agent) played as one: their action
                                            probabilities averaged; they must share a contract
  MODEL@T                                   a model (or ensemble) sampled at temperature T:
                                            1 as trained, 0 always its most probable action;
                                            without @T, model files play at 1 and `agent` at 0
  lookahead:MODEL | lookaheadN:MODEL        a model (or ensemble) whose likeliest actions are
                                            played one turn ahead in the simulator (N turns:
                                            the later ones with both sides' hardest hits) and
                                            weighed against its preferences as trained (a
                                            temperature is ignored; metapvp.players.lookahead)
  lookaheadNxK:MODEL                        the same, each outcome averaged over K draws of
                                            chance (damage rolls, accuracy, critical hits)
  lookaheadNwW:MODEL                        the same, weight W on the material against the
                                            policy's log-probabilities (4 without w)
  search:MODEL                              a model (or ensemble) guiding a tree search in the
                                            simulator at every decision: both sides choosing at
                                            once, the unseen drawn (metapvp.players.search;
                                            singles and doubles), at SearchConfig's defaults
  search(visits=128,worlds=4):MODEL         the same with the settings named changed (every
                                            field of metapvp.players.searchconfig.SearchConfig:
                                            visits, ms, worlds, halve, weight, play_on,
                                            exploration, scripted=heuristic+maxdamage)
  search[N|Nms][xW][hM][qQ][pP][s]:MODEL    the same in the compact form results record: N
                                            visits or N ms, W worlds, halving over M, weight Q,
                                            P turns played on, s the scripted players' picks
                                            among our root candidates
"""
from __future__ import annotations

import importlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from metapvp.engine.native import available as native_available
from metapvp.models.modelfile import ModelError, read_metadata
from metapvp.players.base import Player
from metapvp.players.lookahead import DEFAULT_WEIGHT as DEFAULT_LOOKAHEAD_WEIGHT
from metapvp.players.lookahead import LookaheadPlayer
from metapvp.players.native import MctsPlayer, NativeConfig, NativeSearchPlayer
from metapvp.players.neural import load_player
from metapvp.players.scripted import FirstLegalPlayer, RandomPlayer, ScriptedPlayer
from metapvp.players.search import SearchPlayer
from metapvp.players.searchconfig import SearchConfig, keyword_fields, parse_prefix
from metapvp.players.specerror import SpecError

log = logging.getLogger(__name__)

BUILTIN = {
    "random": lambda seed: RandomPlayer(seed),
    "first": lambda seed: FirstLegalPlayer(),
    "maxdamage": lambda seed: ScriptedPlayer("maxdamage"),
    "heuristic": lambda seed: ScriptedPlayer("heuristic"),
    "mcts": lambda seed: MctsPlayer(seed=seed),
}


SHIPPED_MODELS = Path(__file__).resolve().parents[2] / "static" / "models"
# `agent` is the shipped model as its metadata says it plays at its strongest as measured,
# written by metapvp/exe/ship_model.py --search: its "native" entry (NativeConfig.to_dict(), the
# native search on poke-engine; gen 9 singles, docs/agent.md) where the native search is built,
# else its "search" entry (SearchConfig.to_dict(), the search in Showdown's simulator: in singles
# 64 visits, in doubles 64 visits over its eight likeliest pairs with the scripted players' picks
# among them, docs/doubles.md). A model whose metadata names neither plays SearchConfig's
# defaults. In an ensemble (agent+MODEL), `agent` plays at its most probable action.
AGENT_TEMPERATURE = 0.0
_told_no_native: set[str] = set()


def _agent_metadata(fmt: str) -> tuple[Path, dict]:
    path = shipped_model(fmt)
    try:
        return path, read_metadata(path)
    except ModelError as e:
        raise SpecError(f"player 'agent': {e}") from None


def agent_search(fmt: str) -> SearchConfig:
    """The search in Showdown's simulator the model shipped for `fmt` plays as `agent` where it
    has no native setting or the native search is not built (its metadata's "search")."""
    path, meta = _agent_metadata(fmt)
    try:
        entry = meta.get("search")
        return SearchConfig() if entry is None else SearchConfig.from_dict(entry, f"{path}: metadata 'search'")
    except SpecError as e:
        raise SpecError(f"player 'agent': {e}") from None


def agent_native(fmt: str, entry: str = "native") -> NativeConfig | None:
    """The native search the model shipped for `fmt` plays as `agent` (its metadata's "native";
    LIVE: the one it plays on a Showdown server), None where it names none (other formats keep
    the search in the simulator)."""
    path, meta = _agent_metadata(fmt)
    found = meta.get(entry)
    try:
        return None if found is None else NativeConfig.from_dict(found, f"{path}: metadata {entry!r}")
    except SpecError as e:
        raise SpecError(f"player 'agent': {e}") from None


# The metadata entry (NativeConfig.to_dict(), ship_model.py --live) of the native search `agent`
# plays on a Showdown server, where the battle timer leaves it seconds a turn: a budget by the
# clock, kept apart from head2head's budget by iterations, which is quicker and plays the same
# on any machine; docs/live.md, "`agent`'s budget on a server".
LIVE = "native_live"


def live_spec(spec: str, fmt: str) -> str:
    """What `spec` plays on a Showdown server (challenge_bot, smogon_eval, the move API): a bare
    `agent` at its model's live setting (LIVE), spelt out; any other spec as given, as is an
    `agent` whose model names none or where the native search is not built."""
    spec = spec.strip()
    if not bare_agent(spec):
        return spec
    live = agent_native(spec.partition(":")[2] or fmt, LIVE)
    return f"{live.prefix()}:{spec}" if live is not None and native_available() else spec


def agent_prefix(fmt: str) -> str:
    """The spec prefix `agent` plays in `fmt`: its native setting where the native search is
    built, else its search in the simulator, said once where that stands in for the native one."""
    native = agent_native(fmt)
    if native is not None and native_available():
        return native.prefix()
    fallback = agent_search(fmt).compact()   # (the metadata is read again only where it is needed)
    if native is not None and fmt not in _told_no_native:
        _told_no_native.add(fmt)
        log.warning("agent in %s: the native search (search-rs/, on poke-engine) is not built here, so agent "
                    "plays %s:agent, the search in Showdown's simulator, instead of %s:agent. To get it: install "
                    "Rust (rustup, so that cargo is on the PATH) and run ./rp again", fmt, fallback, native.prefix())
    return fallback


def agent_as_played(spec: str, fmt: str) -> str:
    """A bare `agent` (or `agent:FORMAT`) as it plays `fmt` (or FORMAT), e.g.
    native(iterations=10000,worlds=2,exploration=1.5,leaf=search,uniform=0.5):agent or search64x2h4q16p1:agent."""
    return f"{agent_prefix(spec.partition(':')[2] or fmt)}:{spec}"


def as_played(spec: str, fmt: str) -> str:
    """What a spec plays in `fmt`: a bare `agent` spelt out (agent_as_played), any other spec as
    given; results record it, so that `agent` measured today is still known when it changes."""
    spec = spec.strip()
    return agent_as_played(spec, fmt) if bare_agent(spec) else spec


def bare_agent(spec: str) -> bool:
    """`agent` or `agent:FORMAT` alone: the shipped model as `agent` plays it (agent_search)."""
    return spec == "agent" or (spec.startswith("agent:") and "+" not in spec and "@" not in spec)


def spec_list(text: str) -> list[str]:
    """Player specs written one after another, split at the commas outside parentheses (a
    search's settings have their own: "native(iterations=1000,uniform=0.5):agent,mcts" is two);
    unbalanced parentheses are named."""
    specs, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            raise SpecError(f"player specs {text!r}: a ')' with no '(' before it, at character {i + 1}")
        if ch == "," and depth == 0:
            specs.append(text[start:i].strip())
            start = i + 1
    if depth:
        raise SpecError(f"player specs {text!r}: a '(' never closed")
    specs.append(text[start:].strip())
    return [s for s in specs if s]


def shipped_model(fmt: str) -> Path:
    """The model file shipped for a format; a clear error naming the formats that have one."""
    path = SHIPPED_MODELS / f"{fmt}.zip"
    if not path.is_file():
        have = sorted(p.stem for p in SHIPPED_MODELS.glob("*.zip"))
        raise SpecError(f"player 'agent': no model is shipped for format {fmt!r} (no {path}); "
                        f"shipped: {', '.join(have) or 'none'}. Train one with integrated_rl_script.py "
                        f"and pass its model file instead")
    return path


@dataclass(frozen=True)
class PlayerSpec:
    """A player spec read (parse_spec): what kind of player it names, its settings and its
    models; make_player() builds it, and results, cards and model metadata read it.

    kind: "builtin" (random, first, maxdamage, heuristic, mcts), "mcts" (with settings), "native",
    "search", "lookahead", "models" (model files or agent, at a temperature) or "named"
    (module.Class:path, ,module.factory)."""
    text: str                       # the spec as given (a bare `agent` spelt out: as_played)
    kind: str
    name: str = ""                  # builtin: its name; named: module.attr
    config: NativeConfig | SearchConfig | None = None
    lookahead: tuple[int, int, float] | None = None   # (turns, draws of chance, weight)
    models: tuple = ()              # the model files, `agent` as the file shipped for the format
    temperature: float = 1.0        # "models": the temperature they play at
    args: tuple = ()                # "named": what it is called with

    @property
    def prefix(self) -> str:
        """The settings part before the models (search64x2h4q16p1, native(...), lookahead2),
        "" for a player without one."""
        return self.text.partition(":")[0] if self.kind in ("search", "native", "lookahead") else ""


def parse_spec(spec: str, fmt: str = "gen9randombattle") -> PlayerSpec:
    """The player `spec` names in `fmt` (the spec's grammar: this module's docstring); SpecError
    names the spec and the part of it that is wrong. `agent` is read as its metadata says it
    plays (its native search where that is built, else its search in the simulator)."""
    spec = spec.strip()
    if spec in BUILTIN:
        return PlayerSpec(spec, "builtin", name=spec)
    if bare_agent(spec):
        return agent_spec(spec, fmt)
    m = LOOKAHEAD.match(spec)
    if m:
        turns, samples, weight = lookahead_settings(spec)
        if not 1 <= turns <= 3:
            raise SpecError(f"player {spec!r}: lookahead plays 1 to 3 turns ahead, not {turns}")
        if not 1 <= samples <= 16:
            raise SpecError(f"player {spec!r}: lookahead averages 1 to 16 draws of chance, not {samples}")
        if not 0 <= weight <= 1000:
            raise SpecError(f"player {spec!r}: the lookahead's weight on material is a number from 0 to 1000")
        return PlayerSpec(spec, "lookahead", lookahead=(turns, samples, weight),
                          models=models_after(spec, m.end(), fmt, "lookahead"))
    found = parse_prefix(spec) if spec.startswith("search") else None
    if found:
        config, start = found
        return PlayerSpec(spec, "search", config=config, models=models_after(spec, start, fmt, "search"))
    m = NATIVE.match(spec)
    if m:
        return PlayerSpec(spec, "native", config=native_config(spec, m),
                          models=models_after(spec, m.end(), fmt, "native"))
    m = MCTS.match(spec)
    if m:
        return PlayerSpec(spec, "mcts", config=native_config(spec, m))
    if re.match(r"lookahead[0-9xw.]*:", spec):   # settings out of order
        raise SpecError(f"player {spec!r}: a lookahead is lookahead[N][xK][wW]:MODEL, its settings in that "
                        f"order, e.g. lookahead2x3w8:agent")
    models, temperature = model_spec(spec, fmt)
    if models:
        return PlayerSpec(spec, "models", models=tuple(models), temperature=temperature)
    if spec.startswith(","):
        return PlayerSpec(spec, "named", name=spec[1:])
    if ":" in spec and not Path(spec).exists():
        target, path = spec.split(":", 1)
        return PlayerSpec(spec, "named", name=target, args=(path,))
    raise SpecError(f"unknown player {spec!r}: use one of {', '.join(BUILTIN)}, agent, module.Class:path, "
                    f",module.factory, a model file, MODEL+MODEL or MODEL@TEMPERATURE")


def agent_spec(spec: str, fmt: str) -> PlayerSpec:
    """A bare `agent` (or agent:FORMAT) read from its model's metadata, as agent_prefix() says it
    plays: its native search where that is built, else its search in the simulator."""
    played_in = spec.partition(":")[2] or fmt
    text, path = agent_as_played(spec, fmt), shipped_model(played_in)
    native = agent_native(played_in)
    if native is not None and native_available():
        return PlayerSpec(text, "native", config=native, models=(path,))
    return PlayerSpec(text, "search", config=agent_search(played_in), models=(path,))


def models_after(spec: str, start: int, fmt: str, kind: str) -> tuple:
    """The model files a search's or lookahead's settings (ending at `start`) guide."""
    models, _ = model_spec(spec[start:], fmt)
    if not models:
        raise SpecError(f"player {spec!r}: {kind} needs a model after {spec[:start]!r} "
                        f"(agent, a model file, MODEL+MODEL)")
    return tuple(models)


def make_player(spec: str, seed: int | None = None, fmt: str = "gen9randombattle") -> Player:
    """The player `spec` names (parse_spec), seeded; `fmt` is the format it will play: `agent`
    loads the model shipped for it."""
    return build(parse_spec(spec, fmt), seed)


def build(p: PlayerSpec, seed: int | None) -> Player:
    """The player a read spec names."""
    if p.kind == "builtin":
        return BUILTIN[p.name](seed)
    if p.kind == "named":
        return _named(p.text, p.name, p.args)
    try:
        if p.kind == "mcts":
            return MctsPlayer(p.config, seed=seed)
        policy = load_player(list(p.models) if len(p.models) > 1 else p.models[0], seed=seed,
                             temperature=p.temperature if p.kind == "models" else 1.0)
        if p.kind == "models":
            return policy
        if p.kind == "lookahead":
            turns, samples, weight = p.lookahead
            return LookaheadPlayer(policy, play_on=turns - 1, samples=samples, weight=weight)
        if p.kind == "search":
            return SearchPlayer(policy, p.config, seed=seed)
        return NativeSearchPlayer(policy, p.config, seed=seed)
    except (ValueError, RuntimeError) as e:   # a leaf value file, a model that cannot play this
        if isinstance(e, (SpecError, ModelError)):
            raise
        raise SpecError(f"player {p.text!r}: {e}") from None


def model_spec(spec: str, fmt: str) -> tuple[list, float]:
    """The model files a spec names (agent, files, joined by '+', then '@T'), with the
    temperature it plays them at; ([], 1.0) where the spec is not made of models."""
    body, temperature = spec, None
    head, at, tail = spec.rpartition("@")
    if at and not Path(spec).is_file():
        try:
            temperature = float(tail)
        except ValueError:
            raise SpecError(f"player {spec!r}: {tail!r} after '@' is not a temperature (a number >= 0)") from None
        if not temperature >= 0:
            raise SpecError(f"player {spec!r}: the temperature must be a number >= 0, got {tail}")
        body = head
    parts = [body] if Path(body).is_file() else [p.strip() for p in body.split("+")]
    paths = []
    for part in parts:
        if part == "agent" or part.startswith("agent:"):
            paths.append(shipped_model(part.partition(":")[2] or fmt))
        elif Path(part).is_file():
            paths.append(part)
        elif len(parts) > 1 or at:
            raise SpecError(f"player {spec!r}: {part!r} is not a model file or agent[:FORMAT]")
        else:
            return [], 1.0
    if temperature is None:
        temperature = AGENT_TEMPERATURE if all(p == "agent" or p.startswith("agent:") for p in parts) else 1.0
    return paths, temperature


LOOKAHEAD = re.compile(r"lookahead([0-9]*)(?:x([0-9]+))?(?:w([0-9.]+))?:")


def lookahead_settings(spec: str) -> tuple[int, int, float] | None:
    """(turns, draws, weight) of a lookahead[N][xK][wW]: spec; None for any other spec."""
    m = LOOKAHEAD.match(spec)
    return (int(m.group(1) or 1), int(m.group(2) or 1), _number(m.group(3), DEFAULT_LOOKAHEAD_WEIGHT)) if m else None


NATIVE = re.compile(r"native(?:\((?P<fields>[^()]*)\))?:")
MCTS = re.compile(r"mcts\((?P<fields>[^()]*)\)$")


def native_config(spec: str, m: re.Match) -> NativeConfig:
    """The native search's settings a spec names in its parentheses (iterations=N,ms=M,
    worlds=W,exploration=C), its defaults for the others."""
    fields = keyword_fields(m["fields"] or "", NativeConfig, spec)
    if "ms" in fields and "iterations" not in fields:
        fields["iterations"] = 0
    try:
        return NativeConfig(**fields)
    except ValueError as e:
        raise SpecError(f"player {spec!r}: {e}") from None


def _number(text: str | None, default: float) -> float:
    """A spec's number; -1 (out of every range) where it is not one ("0.5.1")."""
    try:
        return float(text) if text else default
    except ValueError:
        return -1.0


def _named(spec: str, target: str, args: tuple) -> Player:
    module, _, attr = target.rpartition(".")
    if not module:
        raise SpecError(f"player {spec!r}: expected module.name, got {target!r}")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise SpecError(f"player {spec!r}: {e}") from None
    player = obj(*args)
    if not hasattr(player, "act"):
        raise SpecError(f"player {spec!r}: {target} did not make a player (no act method)")
    return player

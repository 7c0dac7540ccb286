"""Fits the native search's learned leaf value (what `agent` values its search's leaves by:
static/models/native-value-search.json is `--target search`'s) (search-rs/src/features.rs), a logistic model of
P(side one wins) over features of the engine's state, each side one's lead, fitted to how played
battles ended. The battles are gen 9 random battles whose sides both play a scripted player
(js/checks/enginecheck.js engineGames; a share of decisions at random, for positions the player
would not reach itself); every round's true state is a sample, labelled by the battle's winner.
With --logs, the battles are instead those head2head kept (--keep-logs: each battle's seed and
input log), replayed in the simulator: the search's own games, where the search played a side.
A fifth of the battles are held out: the model is judged on them beside the engine's own
evaluation (its scale fitted the same way), by log-loss, Brier score and accuracy.

With --target search, a position's label is instead what the search makes of it: its root's
mean value after --search-iterations iterations (no prior; leaves the engine's evaluation, or
--search-leaf's model), written in the search's log-odds (the root's own worth plus the logit of
that value). A linear model of that is fitted by least squares and written `relative`: the
search values a leaf by its lead over the root's, as it does the engine's evaluation, so a model
that only copies the evaluation plays as the engine's evaluation does. Played at the leaves, it
puts what a whole search saw of a position at each leaf (bootstrapping, as TD-Leaf); fitted
again with --search-leaf set to it, one more round.

With --target games, the labels are the search's own games: from --games-per-battle positions of
each kept battle, the search plays both sides on to the end inside the engine (search-rs/src/
selfplay.rs: --game-iterations a decision, leaves --search-leaf's model or the engine's
evaluation), and every decision of every game is a sample labelled by that game's winner, the
target AlphaZero gives its value. A logistic model is fitted and written `relative`, as the
search reads the values it plays with.

    metapvp fit-leaf [--battles 5000] [--seed 1] [--write static/models/native-value.json]
    metapvp fit-leaf --logs runs/h2h/RUN [RUN ...] [--write FILE.json]
    metapvp fit-leaf --logs RUN [RUN ...] --target search [--search-iterations 10000]
        [--search-leaf FILE.json] --write FILE.json
    metapvp fit-leaf --logs RUN [RUN ...] --target games [--game-iterations 2000]
        [--games-per-battle 4] [--search-leaf FILE.json] --write FILE.json
    metapvp fit-leaf ... --drop FEATURE [FEATURE ...]   the same fit without those features
    metapvp fit-leaf ... --target search --hidden 16     and a hidden layer of 16 tanh units

Positions are kept in runs/leaf-value/ (--cache) as engine states, by battles, seed, player and
explore (or the runs' names), and the search's values and games by those and the search's
settings: a second run fits without replaying, searching or playing again, with features added to
the module since.
The command line is metapvp/exe/fit_leaf.py; its last line of stdout is the result as JSON."""
from __future__ import annotations

import gzip
import hashlib
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from metapvp.engine.native import leaf_model, native
from metapvp.engine.v8 import checks_context

CHUNK = 250   # battles per call to the checks engine (progress, and memory of the JSON it returns)
EVAL_SCALE = 0.0125   # search-rs/src/duct.rs: the log-odds of a lead of one point of the engine's evaluation
CLIP = 0.01           # a search's value of 0 or 1 is read as this far from it (its log-odds stay finite)


def spread_starts(battle: np.ndarray, per_battle: int) -> list[int]:
    """The indices of the positions games start from: per battle (`battle`, each position's),
    `per_battle` evenly spaced from its first."""
    chosen = []
    for b in np.unique(battle):
        at = np.flatnonzero(battle == b)
        k = min(per_battle, len(at))
        chosen += [int(at[round(i * len(at) / k)]) for i in range(k)]
    return chosen


class Searching:
    """The search a target runs: no prior, `iterations` iterations a search, leaves the engine's
    evaluation (`leaf` None) or a relative learned model (its path); two at once (the search
    releases the GIL)."""

    def __init__(self, iterations: int, leaf: Path | None):
        self.iterations, self.leaf = iterations, leaf
        self.value = leaf_model(leaf) if leaf else None
        if self.value and not self.value.relative:
            raise ValueError(f"--search-leaf {leaf}: not a relative model (one --target search wrote)")
        self.pool = ThreadPoolExecutor(2)

    def leaf_key(self) -> str:
        return hashlib.sha256(self.leaf.read_bytes()).hexdigest()[:8] if self.leaf else "engine"


class SearchTarget(Searching):
    """What the search makes of a state, in its log-odds."""

    def key(self) -> str:
        return f"search{self.iterations}-{self.leaf_key()}"

    def __call__(self, engine, states: list[str]) -> list[float]:
        return list(self.pool.map(lambda s: self.one(engine, s[1], s[0]), enumerate(states)))

    def one(self, engine, state: str, seed: int) -> float:
        leaf = self.value.search_args() if self.value else {}
        r = engine.search(state, iterations=self.iterations, seed=seed, **leaf)
        visits, values = np.array(r["s1"]["visits"], float), np.nan_to_num(r["s1"]["values"])
        mean = float(np.clip(visits @ values / visits.sum(), CLIP, 1 - CLIP))
        if self.value is None:
            root = EVAL_SCALE * r["root_eval"]
        else:
            root = engine.leaf_logit(state, self.value.weights, self.value.hidden)
        return root + float(np.log(mean / (1 - mean)))


class GamesTarget(Searching):
    """The search's own games from the kept positions: `per_battle` positions of each battle,
    evenly spaced, each played on to its end inside the engine by the search for both sides
    (`iterations` a decision), at most `max_turns` decisions."""

    def __init__(self, iterations: int, leaf: Path | None, per_battle: int, max_turns: int = 200):
        super().__init__(iterations, leaf)
        self.per_battle, self.max_turns = per_battle, max_turns

    def key(self) -> str:
        return f"games{self.iterations}-{self.leaf_key()}-p{self.per_battle}-t{self.max_turns}"

    def games(self, states: list[str], battle: np.ndarray) -> dict:
        """{states, y, battle, start}: every decision of every game played from starts(), labelled
        by its game's winner, under the battle its start came from, with the start's index (the
        game's seed); games that reach max_turns left out."""
        engine, out = native(), {"states": [], "y": [], "battle": [], "start": []}
        leaf = self.value.search_args() if self.value else {}
        starts = spread_starts(battle, self.per_battle)

        def play(k: int) -> dict:
            return engine.self_play(states[k], self.iterations, seed=k, max_turns=self.max_turns, **leaf)
        for done, (k, game) in enumerate(zip(starts, self.pool.map(play, starts)), 1):
            if game["winner"] is not None:
                out["states"] += game["states"]
                out["y"] += [game["winner"]] * len(game["states"])
                out["battle"] += [int(battle[k])] * len(game["states"])
                out["start"] += [k] * len(game["states"])
            if done % 500 == 0 or done == len(starts):
                print(f"  played {done} of {len(starts)} games, {len(out['y'])} decisions", file=sys.stderr, flush=True)
        return out


def positions(battles: int, seed: int, player: str, explore: float, cache: Path) -> dict[str, np.ndarray]:
    """{x: features per state, y: 1 where side one won, battle: its battle's index}, ties left
    out; the states read from runs/leaf-value/ where a run with these settings left them."""
    def collect(out):
        checks = checks_context()
        for start in range(0, battles, CHUNK):
            n = min(CHUNK, battles - start)
            found = checks.checks("engineGames", {"format": "gen9randombattle", "battles": n,
                                                  "seed": [seed, start, 7, 11], "player": player, "explore": explore})
            labelled(found, start, out)
            print(f"  {start + n} battles, {len(out['y'])} positions", file=sys.stderr, flush=True)
    return with_features(kept_states(cache / f"{player}-e{explore}-s{seed}-b{battles}.json.gz", collect))


def recorded_states(runs: list[Path], cache: Path) -> tuple[dict, str]:
    """({states, y, battle}, the runs' key): the engine states of the battles head2head kept in the
    run directories `runs` (RUN/logs/), replayed in the simulator (a battle whose replay does not
    end as its record did is named and left out), kept in `cache` by the runs' names."""
    files = sorted(f for run in runs for f in (run / "logs").glob("battle-*.log.json*"))
    if not files:
        raise ValueError(f"no kept battle logs in {', '.join(str(r / 'logs') for r in runs)} (head2head --keep-logs)")

    def collect(out):
        checks = checks_context()
        for start in range(0, len(files), CHUNK):
            part = files[start:start + CHUNK]
            records = [json.loads((gzip.open if f.suffix == ".gz" else open)(f, "rt").read()) for f in part]
            found = checks.checks("engineReplays", {"format": records[0]["format"], "battles": [
                {"seed": r["seed"], "inputLog": r["inputLog"], "winner": r["winner"]} for r in records]})
            astray = {k for k, b in enumerate(found["battles"]) if not b["reproduced"]}
            for k in sorted(astray):
                print(f"  {part[k]}: the replay does not end as recorded; left out", file=sys.stderr)
            labelled(found, start, out, astray)
            print(f"  {start + len(part)} of {len(files)} battles, {len(out['y'])} positions", file=sys.stderr,
                  flush=True)
    key = hashlib.sha256("\n".join(sorted(str(r.resolve()) for r in runs)).encode()).hexdigest()[:12]
    return kept_states(cache / f"logs-{key}.json.gz", collect), key


def recorded_positions(runs: list[Path], cache: Path, target: SearchTarget | GamesTarget | None = None
                       ) -> dict[str, np.ndarray]:
    """As positions(), from recorded_states(). With `target`, each position also has t, what the
    search makes of it, kept in runs/leaf-value/ by the runs' names and the target's settings.
    With a GamesTarget, the samples are instead the decisions of the search's games played on
    from them (kept by the same names)."""
    states, key = recorded_states(runs, cache)
    if isinstance(target, GamesTarget):
        return with_features(kept_states(cache / f"logs-{key}-{target.key()}.json.gz", lambda out: out.update(
            target.games(states["states"], np.asarray(states["battle"])))))
    data = with_features(states)
    if target:
        data["t"] = kept_targets(cache / f"logs-{key}-{target.key()}.npz", target, states["states"])
    return data


def labelled(found: dict, offset: int, out: dict, left_out=frozenset()):
    """Adds to `out` ({states, y, battle} lists) each battle's states of a checks answer
    ({states, battles: [{first, p1won}]}), labelled by whether p1 won; ties and the battles
    numbered in `left_out` skipped."""
    ends = [b["first"] for b in found["battles"][1:]] + [len(found["states"])]
    for k, (battle, end) in enumerate(zip(found["battles"], ends)):
        if battle["p1won"] is None or k in left_out:
            continue
        states = found["states"][battle["first"]:end]
        out["states"] += states
        out["y"] += [float(battle["p1won"])] * len(states)
        out["battle"] += [offset + k] * len(states)


def kept_states(path: Path, collect) -> dict:
    """The engine states (with y and battle) kept in `path`, or those `collect(out)` adds to
    out's lists, kept there. States, not features: features added to the module since are
    computed from them."""
    if path.exists():
        print(f"  positions read from {path}", file=sys.stderr)
        return json.loads(gzip.open(path, "rt").read())
    out = {"states": [], "y": [], "battle": []}
    collect(out)
    write_whole(path, lambda f: f.write(gzip.compress(json.dumps(out).encode())))
    return out


def kept_targets(path: Path, target: SearchTarget, states: list[str]) -> np.ndarray:
    """What the search makes of each state, kept in `path` (named by the positions and the
    search, not the features: new features do not search the positions again)."""
    if path.exists():
        t = np.load(path)["t"]
        if len(t) == len(states):
            print(f"  the search's values read from {path}", file=sys.stderr)
            return t
    engine, t = native(), []
    for start in range(0, len(states), 1000):
        t += target(engine, states[start:start + 1000])
        print(f"  searched {len(t)} of {len(states)} positions", file=sys.stderr, flush=True)
    t = np.asarray(t, np.float64)
    write_whole(path, lambda f: np.savez_compressed(f, t=t))
    return t


def write_whole(path: Path, write):
    """`write(file)` into a file beside `path`, renamed to it once whole (a run stopped while
    writing leaves no half a cache)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    with open(part, "wb") as f:
        write(f)
    part.replace(path)


def with_features(data: dict) -> dict[str, np.ndarray]:
    """{x: the module's features of each state, y, battle} as arrays."""
    engine = native()
    return {"x": np.array([engine.features(s) for s in data["states"]], np.float64).reshape(len(data["states"]), -1),
            "y": np.asarray(data["y"], np.float64), "battle": np.asarray(data["battle"], np.int64)}


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 50) -> np.ndarray:
    """Logistic regression with no intercept (the model is the same from either seat), by
    Newton's method with an L2 penalty of `l2` per sample."""
    w = np.zeros(x.shape[1])
    n = len(y)
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) / n + l2 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x / n + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def least_squares(x: np.ndarray, t: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """A linear model of t with no intercept (the same from either seat), an L2 penalty of `l2`
    per sample."""
    return np.linalg.solve(x.T @ x / len(t) + l2 * np.eye(x.shape[1]), x.T @ t / len(t))


def fit_hidden(x: np.ndarray, residual: np.ndarray, units: int, epochs: int = 100) -> tuple[list, list]:
    """A hidden layer of `units` tanh units with no biases (odd in x: the model stays the same from
    either seat) fitted by Adam to what the linear model leaves, `residual`; -> (rows, out) as the
    search takes them (the inputs' scale folded into the rows). Seeded: the same fit every time."""
    import torch
    torch.manual_seed(0)
    scale = x.std(0) + 1e-6
    xs, r = torch.tensor(x / scale, dtype=torch.float32), torch.tensor(residual, dtype=torch.float32)
    rows = torch.nn.Linear(x.shape[1], units, bias=False)
    out = torch.nn.Linear(units, 1, bias=False)
    opt = torch.optim.Adam([*rows.parameters(), *out.parameters()], lr=3e-3, weight_decay=1e-5)
    order = torch.Generator().manual_seed(0)
    for _ in range(epochs):
        for batch in torch.randperm(len(r), generator=order).split(512):
            opt.zero_grad()
            loss = ((out(torch.tanh(rows(xs[batch]))).squeeze(-1) - r[batch]) ** 2).mean()
            loss.backward()
            opt.step()
    return (rows.weight.detach().numpy() / scale).tolist(), out.weight.detach().numpy()[0].tolist()


def hidden_logit(x: np.ndarray, hidden: tuple[list, list] | None) -> np.ndarray:
    """What a hidden layer (fit_hidden's) adds to the log-odds of each row of x."""
    if hidden is None:
        return np.zeros(len(x))
    rows, out = hidden
    return np.tanh(x @ np.asarray(rows).T) @ np.asarray(out)


def judged_search(x: np.ndarray, t: np.ndarray, y: np.ndarray, w: np.ndarray, hidden=None) -> dict:
    """How well w's log-odds (and a hidden layer's) match the search's (root mean square, R^2), and
    how often their sign names the battle's winner."""
    guess = x @ w + hidden_logit(x, hidden)
    return {"rmse": float(np.sqrt(np.mean((guess - t) ** 2))), "r2": float(1 - np.var(guess - t) / np.var(t)),
            "accuracy": float(np.mean((guess > 0) == (y > 0.5)))}


def judged(x: np.ndarray, y: np.ndarray, w: np.ndarray, hidden=None) -> dict:
    return scored(x @ w + hidden_logit(x, hidden), y)


def chances(logit: np.ndarray) -> np.ndarray:
    return np.clip(1 / (1 + np.exp(-logit)), 1e-6, 1 - 1e-6)


def log_losses(logit: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each position's log-loss: win chances (as log-odds) against outcomes y."""
    p = chances(logit)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def scored(logit: np.ndarray, y: np.ndarray) -> dict:
    """Win chances (as log-odds) judged against outcomes y: log-loss, Brier score, accuracy."""
    p = chances(logit)
    return {"log_loss": float(np.mean(log_losses(logit, y))),
            "brier": float(np.mean((p - y) ** 2)), "accuracy": float(np.mean((p > 0.5) == (y > 0.5)))}


def difference_by_game(a: np.ndarray, b: np.ndarray, game: np.ndarray) -> dict:
    """The mean of a - b over positions (two values' log-losses on the same positions) with its
    95% interval, the games taken as the units: a game's positions share one outcome, so they are
    not independent, and an interval over positions would be too narrow. The ratio estimator's
    standard error (the sum over games of a - b against the positions a game has)."""
    d = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    _, which = np.unique(game, return_inverse=True)
    sums, counts = np.bincount(which, d), np.bincount(which).astype(np.float64)
    g, mean = len(sums), float(d.mean())
    se = float(np.sqrt(g / max(g - 1, 1) * np.sum((sums - mean * counts) ** 2)) / counts.sum())
    return {"difference": mean, "ci95": [mean - 1.96 * se, mean + 1.96 * se], "games": int(g)}


def fit_and_judge(data: dict, names: list[str], target, hidden_units: int = 0) -> tuple[dict, np.ndarray, dict]:
    """The model fitted on four fifths of the battles (every fifth held out) and judged on the
    rest beside the engine's evaluation: (result, the weights, {judged model: its row in words}).
    `names`: the features of data["x"]'s columns; `target`: None (the battles' outcomes), a
    SearchTarget (least squares on the search's log-odds) or a GamesTarget."""
    x, y, battle = data["x"], data["y"], data["battle"]
    held = battle % 5 == 0
    eval_only = [names.index("engine_eval")]
    w_eval = np.zeros(len(names))
    result = {"battles": int(len(np.unique(battle))), "positions": int(len(y)), "held_out": int(held.sum())}
    if isinstance(target, SearchTarget):
        t = data["t"]
        w_eval[eval_only] = least_squares(x[~held][:, eval_only], t[~held])
        w = least_squares(x[~held], t[~held])
        hidden = fit_hidden(x[~held], t[~held] - x[~held] @ w, hidden_units) if hidden_units else None
        engine = np.zeros(len(names))
        engine[eval_only] = EVAL_SCALE * 100   # the search's own reading of the evaluation
        result.update({"target": "search", "search_iterations": target.iterations,
                       "search_leaf": str(target.leaf) if target.leaf else None,
                       "engine_as_searched": judged_search(x[held], t[held], y[held], engine),
                       "engine_eval": judged_search(x[held], t[held], y[held], w_eval),
                       "learned": judged_search(x[held], t[held], y[held], w),
                       **({f"learned_hidden{hidden_units}": judged_search(x[held], t[held], y[held], w, hidden)}
                          if hidden else {}),
                       "engine_eval_scale": float(w_eval[eval_only[0]])})
        rows = {k: f"rmse {r['rmse']:.4f}  R^2 {r['r2']:.3f}  accuracy {r['accuracy']:.3f}"
                for k, r in result.items() if isinstance(r, dict)}
        return result, w, rows
    w_eval[eval_only] = fit(x[~held][:, eval_only], y[~held])
    w = fit(x[~held], y[~held])
    result.update({"engine_eval": judged(x[held], y[held], w_eval), "learned": judged(x[held], y[held], w),
                   "engine_eval_scale": float(w_eval[eval_only[0]])})
    if isinstance(target, GamesTarget):
        result.update({"target": "games", "game_iterations": target.iterations, "games_per_battle": target.per_battle,
                       "search_leaf": str(target.leaf) if target.leaf else None})
        if target.value and len(names) == len(target.value.weights):
            # the model the games were played with, read as a win chance: what the fit is to beat
            result["search_leaf_model"] = judged(x[held], y[held], np.asarray(target.value.weights),
                                                 target.value.hidden)
    rows = {k: f"log-loss {r['log_loss']:.4f}  Brier {r['brier']:.4f}  accuracy {r['accuracy']:.3f}"
            for k, r in result.items() if isinstance(r, dict)}
    return result, w, rows


def model_file(data: dict, names: list[str], target, hidden_units: int, fitted: dict) -> str:
    """The model file's text, fitted on every battle (leaf_model() reads it): its features by
    name, weights, `relative` where the search reads it so, a hidden layer where asked, and
    `fitted`, how it was made."""
    x = data["x"]
    final = least_squares(x, data["t"]) if isinstance(target, SearchTarget) else fit(x, data["y"])
    extra = {"relative": True} if target else {}
    if hidden_units:
        units, out = fit_hidden(x, data["t"] - x @ final, hidden_units)
        extra["hidden"] = {"rows": [[round(v, 6) for v in u] for u in units], "out": [round(v, 6) for v in out]}
    return json.dumps({"features": names, "weights": [round(float(v), 5) for v in final], **extra,
                       "fitted": fitted}, indent=1) + "\n"

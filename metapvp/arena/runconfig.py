"""What a run plays (RunConfig) and its finished battles as counts (Tally): shared by the runner
(runner.py), the run's folder (rundir.py) and the Ray runner (cluster/battles.py)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RunConfig:
    """What a run plays. p1 and p2 name players (specs, metapvp/players/spec.py), not sides: they
    swap sides every battle."""
    p1: str
    p2: str
    format: str = "gen9randombattle"
    num_matches: int = 100
    workers: int = 1
    concurrency: int = 32          # battles at once per worker
    seed: int = 0
    sim: str = "inprocess"         # the backend: inprocess or stdio
    outdir: str | None = None      # where results.json and logs/ go
    play_best_move: str | None = None  # p1, p2 or both take their best action instead of sampling
    team_p1: str | None = None     # team files, for formats with user teams
    team_p2: str | None = None
    quiet: bool = False            # no progress bar
    memory_every: int = 0          # every N battles, each local worker samples its memory
    ray: str | None = None         # None: local processes; else 'local' or a cluster's address
    resume: bool = False           # go on with the run in outdir: its logged battles count, the rest are played
    thoughts: bool | None = None   # with outdir: what the players thought, beside each battle's log
                                   # (arena/thoughts.py); None: where a player has thoughts (Player.thinks)


@dataclass
class Tally:
    """The run's finished battles as counts: a long run keeps no per-battle rows in memory."""
    a: int = 0
    b: int = 0
    ties: int = 0
    failed: int = 0
    turns: int = 0
    invalid: int = 0
    unavailable: int = 0
    errors: set = field(default_factory=set)
    memory: list = field(default_factory=list)   # the workers' memory samples (memory_every)

    def add(self, r: dict):
        """One battle's result (a Result's fields)."""
        if r["winner"] is None:
            self.failed += 1
        else:
            self.a += r["winner"] == "a"
            self.b += r["winner"] == "b"
            self.ties += r["winner"] == "tie"
            self.turns += r["turns"]
        self.invalid += r["invalid"]
        self.unavailable += r["unavailable"]
        if r["error"] and len(self.errors) < 100:
            self.errors.add(r["error"])

    @property
    def played(self) -> int:
        return self.a + self.b + self.ties

    def score(self, cfg: RunConfig) -> str:
        return f"{cfg.p1} {self.a}-{self.b} {cfg.p2}"

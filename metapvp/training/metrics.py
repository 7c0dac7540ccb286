"""Training metrics: TensorBoard scalars, a CSV with one row per update, and a PNG of the win
rate against each evaluation opponent over training, refreshed after each evaluation."""
from __future__ import annotations

import csv
import math
import os
from pathlib import Path


class Metrics:
    def __init__(self, outdir: Path):
        self.outdir = Path(outdir)
        self.csv_path = self.outdir / "metrics.csv"
        self.rows: list[dict] = []
        self.columns: list[str] = []
        if self.csv_path.exists():  # resuming: keep what was written
            with open(self.csv_path, newline="") as f:
                reader = csv.DictReader(f)
                self.rows = [{k: _num(v) for k, v in r.items()} for r in reader]
                self.columns = list(reader.fieldnames or [])
        from torch.utils.tensorboard import SummaryWriter
        self.tb = SummaryWriter(str(self.outdir / "tb"))

    def log(self, step: int, values: dict):
        """values: {'losses/value_loss': 0.1, 'charts/decisions_per_s': 900, ...}."""
        for k, v in values.items():
            if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)):
                self.tb.add_scalar(k, v, step)
        row = {"step": step, **values}
        self.rows.append(row)
        if self.csv_path.exists() and all(k in self.columns for k in row):
            with open(self.csv_path, "a", newline="") as f:  # the usual case: one line more
                csv.DictWriter(f, self.columns).writerow(row)
        else:
            self._write_csv()

    def _write_csv(self):
        """The whole file again, atomically, when a row brings a new column."""
        self.columns = []
        for r in self.rows:
            self.columns += [k for k in r if k not in self.columns]
        tmp = self.csv_path.with_suffix(".csv.tmp")
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, self.columns)
            w.writeheader()
            w.writerows(self.rows)
        os.replace(tmp, self.csv_path)

    def plot(self, prefix: str = "eval/winrate_"):
        """winrate.png: each `eval/winrate_<opponent>` column against training decisions."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        series = {}
        for r in self.rows:
            for k, v in r.items():
                if k.startswith(prefix) and isinstance(v, (int, float)) and not math.isnan(v):
                    series.setdefault(k[len(prefix):], []).append((r["step"], v))
        if not series:
            return
        fig, ax = plt.subplots(figsize=(7, 4))
        for name, points in sorted(series.items()):
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="o", label=name)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("learner decisions")
        ax.set_ylabel("win rate")
        ax.set_ylim(0, 1)
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        tmp = self.outdir / "winrate.tmp.png"
        fig.savefig(tmp, dpi=100)
        plt.close(fig)
        os.replace(tmp, self.outdir / "winrate.png")

    def close(self):
        self.tb.close()


def _num(v: str):
    if v == "":
        return float("nan")
    try:
        return float(v)
    except ValueError:
        return v

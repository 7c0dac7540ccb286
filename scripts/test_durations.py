"""A nose2 plugin that times the suite: each test's seconds, and the seconds before it (its class's
or module's set-up), printed slowest first when the run ends.

    PYTHONPATH=scripts ./rp -m nose2 --plugin test_durations [TESTS]

`--durations-top N` (default 25) sets how many lines are printed; every test's times go to the
file named by METAPVP_DURATIONS (tab-separated: kind, seconds, test id) where it is set."""
from __future__ import annotations

import os
import sys
import time
from collections import Counter

from nose2.events import Plugin


class Durations(Plugin):
    configSection = "test-durations"
    alwaysOn = True   # once loaded with --plugin

    def __init__(self):
        self.top = 25
        self.addArgument(self.set_top, None, "durations-top", "How many of the slowest to print")
        self.rows: list[tuple[str, float, str]] = []
        self.started: dict[str, float] = {}
        self.last = time.monotonic()

    def set_top(self, value):
        self.top = int(value[0])

    def startTest(self, event):
        now = time.monotonic()
        test = event.test.id()
        self.rows.append(("setup", now - self.last, test))   # since the last test ended
        self.started[test] = now

    def stopTest(self, event):
        now = time.monotonic()
        test = event.test.id()
        self.rows.append(("test", now - self.started.pop(test, now), test))
        self.last = now

    def afterSummaryReport(self, event):
        path = os.environ.get("METAPVP_DURATIONS")
        if path:
            with open(path, "w") as f:
                f.writelines(f"{kind}\t{s:.1f}\t{test}\n" for kind, s, test in self.rows)
        per_class = Counter()
        for _, s, test in self.rows:
            per_class[test.rsplit(".", 1)[0]] += s
        out = sys.stderr
        out.write("\nslowest tests (seconds; 'setup': before the test, its class's or module's set-up):\n")
        for kind, s, test in sorted(self.rows, key=lambda r: -r[1])[:self.top]:
            out.write(f"{s:8.1f}  {kind:5}  {test}\n")
        out.write("slowest classes (their tests and set-ups):\n")
        for name, s in per_class.most_common(self.top):
            out.write(f"{s:8.1f}  {name}\n")

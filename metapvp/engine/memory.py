"""What a long-running process holds: its resident memory, and for each V8 context its heap and
the sizes of its battle-knowledge caches. Live clients sample it every N battles
(`--memory-every`) and the soak benchmark reads it, to tell caches filling up to their bounds
from memory that creeps (a leak)."""
from __future__ import annotations

from pathlib import Path

MIB = 2 ** 20


def rss_kib(pid: int | str = "self") -> int | None:
    """A process's resident set in KiB, from /proc (None where there is no /proc, or the
    process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def sample() -> dict:
    """This process now: {"rss_mib", "v8": {contract: {"heap_used_mib", "heap_total_mib",
    "cached": {cache: entries}}}}, over the V8 contexts this process has started."""
    from metapvp.engine.v8 import contexts
    kib = rss_kib()
    out = {"rss_mib": round(kib / 1024, 1) if kib is not None else None, "v8": {}}
    for v8 in contexts():
        heap = v8.heap_stats()
        out["v8"][v8.contract.name] = {"heap_used_mib": round(heap["used_heap_size"] / MIB, 1),
                                       "heap_total_mib": round(heap["total_heap_size"] / MIB, 1),
                                       "cached": v8.knowledge_stats()["cached"]}
    return out

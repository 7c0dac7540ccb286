"""Ray, for spreading rollouts and battles over the cores of several machines (docs/training.md:
"Training on a cluster"). Every node runs the same checkout at the same path, set up with ./rp, and its
Ray workers import metapvp from there. Ray itself is imported only where --ray asks for it."""
from __future__ import annotations

import logging
import os
from pathlib import Path

from metapvp import ROOT

# How long a wait for one actor's reply may last before the run stops with an error naming it
# (a rollout or an evaluation share takes seconds to a few minutes).
REPLY_TIMEOUT_S = float(os.environ.get("METAPVP_RAY_TIMEOUT", "900"))
MAX_REPLACEMENTS = 3    # per command and actor: a worker that dies every time is an error
log = logging.getLogger("metapvp.cluster")

# A Ray call while Ray is down joins whatever cluster it finds by itself (auto-init). Every call
# here comes after connect(); one after shutdown (a late thread) must fail in its own thread, not
# join a cluster whose later end makes Ray stop the whole process. Read when ray is imported,
# which is only after this module.
os.environ.setdefault("RAY_ENABLE_AUTO_CONNECT", "0")


def connect(address: str | None = None, cpus: int | None = None) -> bool:
    """Joins the Ray cluster at `address` ('auto', 'ray://host:port', 'host:port') or, with None,
    starts a local instance with `cpus` CPUs (default: this machine's). -> whether this call
    started or joined Ray (the caller then shuts it down); False when Ray was already up."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("--ray needs Ray, an optional part: pip install 'metapvp[ray]' "
                           "(./rp installs every optional part)") from None
    if ray.is_initialized():
        return False
    runtime_env = {"env_vars": {"PYTHONPATH": str(ROOT)}}
    if address is None:
        ray.init(num_cpus=max(cpus or 0, os.cpu_count() or 1), include_dashboard=False,
                 runtime_env=runtime_env, logging_level=logging.WARNING)
    else:
        ray.init(address=address, runtime_env=runtime_env, logging_level=logging.WARNING)
    return True


def where() -> dict:
    """This process as a place in the cluster: {pid, node, ip} (called inside actors)."""
    import ray
    ctx = ray.get_runtime_context()
    return {"pid": os.getpid(), "node": ctx.get_node_id(), "ip": ray.util.get_node_ip_address()}


def local_copy(path: str, ref, folder: Path) -> str:
    """Where file `path` of the driver's machine is on this node: the path itself where it
    exists here, else a copy of its bytes (object ref `ref`) fetched into `folder`."""
    import ray
    if os.path.exists(path):
        return path
    local = folder / f"{len(list(folder.iterdir()))}-{Path(path).name}"
    local.write_bytes(ray.get(ref))
    return str(local)


def describe(index: int, place: dict | None, what: str = "worker") -> str:
    """An actor named for messages: its index and, where known, its process and node."""
    if not place:
        return f"ray {what} {index}"
    return f"ray {what} {index} (pid {place['pid']} on {place['ip']}, node {place['node'][:8]})"

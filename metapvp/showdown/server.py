"""A real Pokemon Showdown server from the pinned npm package, on loopback.

The package expects to run from its own folder, writing config/, logs/ and databases/ there.
To keep that state out of node_modules, the server runs from a root folder of ours (default
data/showdown-server/): real config/, logs/ and databases/ folders, and symlinks to everything
else in the package; node runs with --preserve-symlinks so the package takes our folder as its
root. config/config.js is the package's example config with bindaddress 127.0.0.1."""
from __future__ import annotations

import atexit
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from metapvp import ROOT

PACKAGE = ROOT / "js" / "node_modules" / "pokemon-showdown"
DEFAULT_ROOT = ROOT / "data" / "showdown-server"
STATE_DIRS = ("config", "logs", "databases")
WRITABLE = ("config/chat-plugins", "logs/repl", "logs/chat", "logs/modlog", "logs/randbats",
            "logs/tickets", "databases")


class ServerError(RuntimeError):
    """The server could not be prepared or did not come up."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare_root(root: Path, port: int, throttle: bool = True, extra: dict | None = None) -> Path:
    """The server's root folder; `extra`: more config settings ({name: JSON-able value})."""
    if not (PACKAGE / "dist").is_dir():
        raise ServerError(f"{PACKAGE} is missing: run any command through ./rp to install it")
    root.mkdir(parents=True, exist_ok=True)
    for entry in PACKAGE.iterdir():
        if entry.name in STATE_DIRS:
            continue
        link = root / entry.name
        if not link.is_symlink() or os.readlink(link) != str(entry):
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(entry)
    for d in WRITABLE:
        (root / d).mkdir(parents=True, exist_ok=True)
    example = root / "config" / "config-example.js"
    if not example.is_symlink():
        example.symlink_to(PACKAGE / "config" / "config-example.js")
    (root / "config" / "config.js").write_text(
        "// Written by metapvp/showdown/server.py: the package's example config, on loopback.\n"
        "Object.assign(exports, require('./config-example.js'));\n"
        "exports.bindaddress = '127.0.0.1';\n"
        f"exports.port = {int(port)};\n"
        "exports.repl = false;\n"
        f"exports.nothrottle = {'false' if throttle else 'true'};\n"
        "exports.subprocesses = {network: 0, simulator: 1, validator: 1, verifier: 1};\n"
        + "".join(f"exports.{k} = {json.dumps(v)};\n" for k, v in (extra or {}).items()))
    return root


def _die_with_parent():
    """In the child, before exec: the kernel sends SIGTERM when the process that started the
    server dies, however it dies, so a killed test run never leaves a server behind (Linux)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class LocalServer:
    """Starts `pokemon-showdown start --no-security` on 127.0.0.1:port; stop() (or leaving the
    `with` block) stops it and reaps every process it started."""

    def __init__(self, port: int | None = None, root: Path | str | None = None, throttle: bool = True,
                 log: Path | str | None = None, config: dict | None = None):
        self.port = port or free_port()
        self.root = Path(root) if root else DEFAULT_ROOT
        self.throttle = throttle
        self.config = config  # extra config.js settings, e.g. a login server's public key
        self.log_path = Path(log) if log else self.root / "logs" / f"server-{self.port}.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/showdown/websocket"

    def start(self, timeout: float = 60.0) -> LocalServer:
        prepare_root(self.root, self.port, self.throttle, self.config)
        node = shutil.which("node")
        if not node:
            raise ServerError("node is not on PATH")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [node, "--preserve-symlinks", "--preserve-symlinks-main", str(self.root / "pokemon-showdown"),
             "start", "--skip-build", "--no-security", str(self.port)],
            # the package's own node_modules is linked in; hoisted dependencies come from js/
            env={**os.environ, "NODE_PATH": str(ROOT / "js" / "node_modules")},
            cwd=self.root, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group, so stop() reaches its children
            preexec_fn=_die_with_parent)
        log.close()
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(f"the server exited with code {self.proc.returncode}; see {self.log_path}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise ServerError(f"the server did not listen on port {self.port} within {timeout:.0f} s; see {self.log_path}")

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 15)
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()
            except ProcessLookupError:
                pass
        try:
            os.killpg(self.proc.pid, 9)  # anything of its group still alive
        except (ProcessLookupError, PermissionError):
            pass
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

"""Logging in to a Showdown server.

An unregistered name on a server without login security (a local one): `/trn NAME,0,`.
A real account: the server's `|challstr|` goes to the login server with the name and password
(POST name=..&pass=..&challstr=.. to LOGIN_SERVER/api/login); the reply is `]` followed by
JSON whose `assertion` finishes the login: `/trn NAME,0,ASSERTION`, or whose `actionerror` says
why not ("Wrong password."). A transient failure (unreachable, a timeout, a 5xx) is tried again
after a wait; a refusal is final.

The password is read from an environment variable or a file, never from the command line."""
from __future__ import annotations

import asyncio
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from metapvp import __version__

LOGIN_SERVER = "https://play.pokemonshowdown.com"
PASSWORD_ENV = "METAPVP_SHOWDOWN_PASSWORD"


class LoginError(RuntimeError):
    """The login server refused or could not be reached; the message says which."""


def read_password(password_file: str | None = None, env: str = PASSWORD_ENV) -> str | None:
    """The account password: from `password_file` (first line) when given, else from the
    environment variable `env`; None when neither is set (log in unregistered)."""
    if password_file:
        try:
            return Path(password_file).read_text().splitlines()[0].strip()
        except (OSError, IndexError) as e:
            raise LoginError(f"password file {password_file}: {e}") from None
    return os.environ.get(env) or None


USER_AGENT = f"metapvp/{__version__} (a Pokemon Showdown bot toolkit)"
RETRY_DELAYS_S = (1.0, 4.0)   # waits before the 2nd and 3rd tries after a transient failure


class _Transient(LoginError):
    """A failure worth trying again: the login server could not be reached, timed out, or
    answered with a server error (5xx)."""


def _post_login(url: str, name: str, password: str, challstr: str, timeout: float) -> str:
    data = urllib.parse.urlencode({"name": name, "pass": password, "challstr": challstr}).encode()
    req = urllib.request.Request(f"{url.rstrip('/')}/api/login", data=data, method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded",
                                          "User-Agent": USER_AGENT})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        error = _Transient if e.code >= 500 else LoginError
        raise error(f"login server {url}: HTTP {e.code}") from None
    except (urllib.error.URLError, OSError) as e:
        raise _Transient(f"login server {url} unreachable: {e}") from None
    if not body.startswith("]"):
        raise LoginError(f"login server {url}: unexpected reply {body[:120]!r}")
    try:
        reply = json.loads(body[1:])
    except json.JSONDecodeError as e:
        raise LoginError(f"login server {url}: reply is not JSON after ']': {e}") from None
    if not isinstance(reply, dict):
        raise LoginError(f"login server {url}: reply is not a JSON object: {body[:120]!r}")
    # a refusal (a wrong password, too many attempts, the per-address throttle) comes as
    # {"actionerror": "..."}; older servers sent an assertion starting with ';;' and a reason
    assertion = reply.get("assertion") or ""
    if reply.get("actionerror") or not assertion or assertion.startswith(";"):
        reason = reply.get("actionerror") or assertion.lstrip(";") or "no assertion in the reply"
        raise LoginError(f"login server {url} refused {name!r}: {reason}")
    return assertion


def post_login(url: str, name: str, password: str, challstr: str, timeout: float = 15.0,
               delays=RETRY_DELAYS_S) -> str:
    """The assertion for (name, password), trying again after each of `delays` (seconds) when
    the failure is transient; a refusal or a malformed reply is final at once."""
    for wait in (*delays, None):
        try:
            return _post_login(url, name, password, challstr, timeout)
        except _Transient as e:
            if wait is None:
                raise LoginError(f"{e} (after {len(delays) + 1} tries)") from None
            time.sleep(wait)


async def assertion_for(name: str, password: str, challstr: str, url: str = LOGIN_SERVER,
                        timeout: float = 15.0) -> str:
    """The login server's assertion for (name, password) against this connection's challstr."""
    return await asyncio.to_thread(post_login, url, name, password, challstr, timeout)


def trn(name: str, assertion: str = "") -> str:
    return f"|/trn {name},0,{assertion}"

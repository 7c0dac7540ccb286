"""Logging in to a Showdown server.

An unregistered name on a server without login security (a local one): `/trn NAME,0,`.
A real account: the server's `|challstr|` goes to the login server with the name and password
(POST name=..&pass=..&challstr=.. to LOGIN_SERVER/api/login); the reply is `]` followed by
JSON whose `assertion` finishes the login: `/trn NAME,0,ASSERTION`.

The password is read from an environment variable or a file, never from the command line."""
from __future__ import annotations

import asyncio
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

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


def _post_login(url: str, name: str, password: str, challstr: str, timeout: float) -> str:
    data = urllib.parse.urlencode({"name": name, "pass": password, "challstr": challstr}).encode()
    req = urllib.request.Request(f"{url.rstrip('/')}/api/login", data=data, method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        raise LoginError(f"login server {url}: HTTP {e.code}") from None
    except (urllib.error.URLError, OSError) as e:
        raise LoginError(f"login server {url} unreachable: {e}") from None
    if not body.startswith("]"):
        raise LoginError(f"login server {url}: unexpected reply {body[:120]!r}")
    try:
        reply = json.loads(body[1:])
    except json.JSONDecodeError as e:
        raise LoginError(f"login server {url}: reply is not JSON after ']': {e}") from None
    assertion = reply.get("assertion") or ""
    if not reply.get("actionsuccess") or not assertion or assertion.startswith(";"):
        reason = assertion.lstrip(";") or reply.get("error") or "no assertion"
        raise LoginError(f"login server {url} refused {name!r}: {reason}")
    return assertion


async def assertion_for(name: str, password: str, challstr: str, url: str = LOGIN_SERVER,
                        timeout: float = 15.0) -> str:
    """The login server's assertion for (name, password) against this connection's challstr."""
    return await asyncio.to_thread(_post_login, url, name, password, challstr, timeout)


def trn(name: str, assertion: str = "") -> str:
    return f"|/trn {name},0,{assertion}"

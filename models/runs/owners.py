"""Who owns a studio run: a server-side secret bound to a browser by a signed cookie (no Streamlit).

A browser gets a random id (:func:`new_owner_id`, 128 bits). The cookie that keeps it holds the id and
its HMAC-SHA256 under the server's secret (:func:`cookie_value`); a cookie is believed only when its
HMAC is right (:func:`read_cookie`), so an id read anywhere cannot be turned into a cookie without the
secret. A run records neither: its ``owner`` is a second HMAC of the id (:func:`owner_key`), so the
files of a run (and anything made from them) give nothing a cookie can be made of.

The secret is ``$ATTENTION_LAB_SECRET`` when set (replicas of one deployment then agree), else a file
``.owner-secret`` (32 random bytes, mode 0600) in the runs folder, made once by whichever process comes
first and read by the others.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

SECRET_ENV, SECRET_FILE = "ATTENTION_LAB_SECRET", ".owner-secret"
_ID = re.compile(r"[0-9a-f]{32}")
_COOKIE = re.compile(r"([0-9a-f]{32})\.([0-9a-f]{64})")


def new_owner_id() -> str:
    """A fresh browser id: 128 random bits as 32 hex digits."""
    return secrets.token_hex(16)


def _mac(secret: bytes, purpose: str, owner_id: str) -> str:
    return hmac.new(secret, f"{purpose}:{owner_id}".encode(), hashlib.sha256).hexdigest()


@functools.cache
def _secret_of(root: str, from_env: str | None) -> bytes:
    if from_env:
        return from_env.encode()
    folder = Path(root)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SECRET_FILE
    if not path.is_file():
        staging = folder / f".{SECRET_FILE}.{secrets.token_hex(4)}"
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(32))
        try:
            os.link(staging, path)  # atomic, and never over a secret another process made first
        except FileExistsError:
            pass
        finally:
            staging.unlink()
    secret = path.read_bytes()
    if len(secret) < 16:
        raise RuntimeError("the runs folder's owner secret is damaged: delete .owner-secret to make a new one")
    return secret


def server_secret(root: Path) -> bytes:
    """The secret that signs cookies and derives owner keys (see the module's docstring)."""
    return _secret_of(str(root), os.environ.get(SECRET_ENV) or None)


def cookie_value(owner_id: str, root: Path) -> str:
    """The cookie that binds ``owner_id`` to a browser: ``<id>.<HMAC-SHA256(secret, "cookie:" + id)>``."""
    if not _ID.fullmatch(owner_id):
        raise ValueError("not an owner id")
    return f"{owner_id}.{_mac(server_secret(root), 'cookie', owner_id)}"


def read_cookie(value: object, root: Path) -> str | None:
    """The owner id of a cookie this server signed; None for anything else (a forged, edited or
    unsigned cookie, or another server's)."""
    if not isinstance(value, str):
        return None
    match = _COOKIE.fullmatch(value)
    if match is None:
        return None
    owner_id, mac = match.groups()
    return owner_id if hmac.compare_digest(mac, _mac(server_secret(root), "cookie", owner_id)) else None


def owner_key(owner_id: str, root: Path) -> str:
    """What a run records as its owner: HMAC-SHA256(secret, "owner:" + id), 32 hex digits."""
    return _mac(server_secret(root), "owner", owner_id)[:32]

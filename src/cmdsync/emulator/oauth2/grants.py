"""What the OAuth2 authorization-code flow keeps: pending consent requests, codes, grants.

The flow (Discord's "OAuth2" topic; RFC 6749 4.1, RFC 7636) in the emulator's
:class:`~cmdsync.emulator.store.database.Store`, each step one transaction:

- a consent page shown for ``GET /oauth2/authorize`` holds a
  :class:`Pending` request under a random nonce (the form posts only the
  nonce back, so the request's parameters cannot be changed on the way);
  :func:`take_pending` uses it up, once, within :data:`CODE_LIFETIME`;
- an approved request becomes a :class:`Code`, single use, valid
  :data:`CODE_LIFETIME` seconds;
- a redeemed code becomes a grant: a refresh token (its row in
  ``oauth_grants``) and the access tokens issued from it (``tokens`` rows
  with its ``grant_id``). Revoking the grant (:func:`revoke_grant`) deletes
  all of them; a code redeemed twice revokes the grant it led to (RFC 6749
  4.1.2, 10.5);
- a refresh is a new access token and a new refresh token, the old one
  spent (rotation). A refresh token names its grant (``<grant id>.<random>``),
  so that a spent one presented again is recognised without keeping every
  spent token: it revokes the grant (:func:`replayed`; RFC 9700 4.14.2: one
  of two parties holds a copy, the server cannot tell which, so neither keeps
  the grant).

Times are epoch seconds from the emulator's injected clock.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass

from cmdsync.emulator.domain.objects import Token
from cmdsync.emulator.store.database import Store

CODE_LIFETIME = 600  # seconds: codes and consent pages (RFC 6749 4.1.2: 10 minutes at most)
TOKEN_LIFETIME = 604800  # seconds: access tokens (Discord's "OAuth2" topic: expires_in)


@dataclass(frozen=True)
class Pending:
    """An authorization request waiting on its consent page.

    ``redirect_uri`` is where the answer goes; ``given_redirect`` whether the
    request named it (the token request must then name it too, RFC 6749
    4.1.3). ``state`` and ``challenge`` (PKCE S256) are None when absent.
    """

    client_id: str
    redirect_uri: str
    given_redirect: bool
    scopes: tuple[str, ...]
    state: str | None
    challenge: str | None


@dataclass(frozen=True)
class Code:
    """An authorization code: who approved what, for which client and redirect."""

    application_id: str
    user_id: str
    redirect_uri: str  # "" when the authorization request named none
    scopes: tuple[str, ...]
    challenge: str | None
    expires_at: float


@dataclass(frozen=True)
class Issued:
    """A new access token and the refresh token beside it."""

    access_token: str
    refresh_token: str
    scopes: frozenset[str]


def save_pending(store: Store, pending: Pending, *, now: float) -> str:
    """Keep ``pending`` for :data:`CODE_LIFETIME` seconds; returns its nonce."""
    nonce = secrets.token_urlsafe(24)
    with store.transaction() as db:
        db.execute("DELETE FROM oauth_requests WHERE expires_at <= ?", (now,))
        db.execute("INSERT INTO oauth_requests VALUES (?, ?, ?)",
                   (nonce, json.dumps(asdict(pending)), now + CODE_LIFETIME))
    return nonce


def take_pending(store: Store, nonce: str, *, now: float) -> Pending | None:
    """The request of ``nonce``, used up; None when unknown, used or expired."""
    with store.transaction() as db:
        row = db.execute("SELECT body, expires_at FROM oauth_requests WHERE nonce = ?",
                         (nonce,)).fetchone()
        db.execute("DELETE FROM oauth_requests WHERE nonce = ?", (nonce,))
    if row is None or row["expires_at"] <= now:
        return None
    body = json.loads(row["body"])
    return Pending(**{**body, "scopes": tuple(body["scopes"])})


def save_code(store: Store, code: Code, *, now: float) -> str:
    """Keep ``code`` (single use); returns its value. Unused expired codes are dropped;
    used ones stay, so that a second use is recognised and revokes the grant."""
    value = secrets.token_urlsafe(32)
    with store.transaction() as db:
        db.execute("DELETE FROM oauth_codes WHERE expires_at <= ? AND grant_id IS NULL",
                   (now,))
        db.execute("INSERT INTO oauth_codes VALUES (?, ?, ?, NULL)",
                   (value, json.dumps(asdict(code)), code.expires_at))
    return value


def find_code(db: sqlite3.Connection, value: str) -> tuple[Code, str | None] | None:
    """``(code, grant id if already redeemed)`` inside a transaction, or None."""
    row = db.execute("SELECT body, grant_id FROM oauth_codes WHERE code = ?",
                     (value,)).fetchone()
    if row is None:
        return None
    body = json.loads(row["body"])
    return Code(**{**body, "scopes": tuple(body["scopes"])}), row["grant_id"]


def forget_code(db: sqlite3.Connection, value: str) -> None:
    """Drop a code that failed its checks: it cannot be tried again."""
    db.execute("DELETE FROM oauth_codes WHERE code = ?", (value,))


def redeem(store: Store, db: sqlite3.Connection, value: str, code: Code, *,
           guilds: frozenset[str], now: float) -> Issued:
    """Mark the code used and issue a grant for it: an access token (Bearer, valid
    :data:`TOKEN_LIFETIME` seconds, managing ``guilds``) and a refresh token."""
    grant_id = secrets.token_hex(12)
    db.execute("UPDATE oauth_codes SET grant_id = ? WHERE code = ?", (grant_id, value))
    refresh = _refresh_token(grant_id)
    db.execute("INSERT INTO oauth_grants VALUES (?, ?, ?, ?, ?)",
               (grant_id, code.application_id, code.user_id, " ".join(code.scopes), refresh))
    access = _access_token(store, db, grant_id, code.application_id, code.user_id,
                           frozenset(code.scopes), guilds, now)
    return Issued(access, refresh, frozenset(code.scopes))


def refresh(store: Store, db: sqlite3.Connection, refresh_token: str, client_id: str,
            scopes: frozenset[str] | None, *, guilds_of: Callable[[str], frozenset[str]],
            now: float) -> Issued | None:
    """A new access token and a new refresh token for the grant of ``refresh_token``
    (which stops being valid), with ``scopes`` (None: the grant's); None when the
    refresh token is unknown or another client's. ``guilds_of(user_id)`` are the
    guilds that user may manage."""
    row = db.execute("SELECT * FROM oauth_grants WHERE refresh_token = ?",
                     (refresh_token,)).fetchone()
    if row is None or row["application_id"] != client_id:
        return None
    granted = frozenset(row["scopes"].split())
    new_refresh = _refresh_token(row["id"])
    db.execute("UPDATE oauth_grants SET refresh_token = ? WHERE id = ?",
               (new_refresh, row["id"]))
    chosen = granted if scopes is None else scopes
    access = _access_token(store, db, row["id"], client_id, row["user_id"], chosen,
                           guilds_of(row["user_id"]), now)
    return Issued(access, new_refresh, chosen)


def replayed(db: sqlite3.Connection, refresh_token: str, client_id: str) -> bool:
    """Whether ``refresh_token`` is a spent refresh token of a grant of ``client_id`` that
    is still alive; if so, the grant is revoked (see the module docstring). Another
    client's, an unknown or the current refresh token is no replay."""
    grant_id, dot, _ = refresh_token.partition(".")
    if not dot:
        return False
    row = db.execute("SELECT refresh_token FROM oauth_grants WHERE id = ? AND "
                     "application_id = ?", (grant_id, client_id)).fetchone()
    if row is None or secrets.compare_digest(row["refresh_token"].encode(),
                                             refresh_token.encode()):
        return False
    revoke_grant(db, grant_id)
    return True


def granted_scopes(db: sqlite3.Connection, refresh_token: str) -> frozenset[str] | None:
    """The scopes of the grant of ``refresh_token``, or None when it is unknown."""
    row = db.execute("SELECT scopes FROM oauth_grants WHERE refresh_token = ?",
                     (refresh_token,)).fetchone()
    return None if row is None else frozenset(row["scopes"].split())


def revoke_grant(db: sqlite3.Connection, grant_id: str) -> None:
    """Forget the grant's refresh token and every access token issued from it."""
    db.execute("DELETE FROM tokens WHERE grant_id = ?", (grant_id,))
    db.execute("DELETE FROM oauth_grants WHERE id = ?", (grant_id,))


def revoke(store: Store, client_id: str, token: str) -> None:
    """RFC 7009: revoke ``token`` (an access or refresh token of ``client_id``) and, when
    it came from a grant, the whole grant. Unknown tokens, and other clients' tokens,
    change nothing (RFC 7009 2.2: the client cannot tell)."""
    with store.transaction() as db:
        row = db.execute("SELECT id FROM oauth_grants WHERE refresh_token = ? AND "
                         "application_id = ?", (token, client_id)).fetchone()
        if row is not None:
            revoke_grant(db, row["id"])
            return
        found = db.execute("SELECT grant_id FROM tokens WHERE token = ? AND kind = 'bearer' "
                           "AND application_id = ?", (token, client_id)).fetchone()
        if found is None:
            return
        if found["grant_id"] is not None:
            revoke_grant(db, found["grant_id"])
        else:  # a client-credentials or seeded token: only itself
            db.execute("DELETE FROM tokens WHERE token = ?", (token,))


def _refresh_token(grant_id: str) -> str:
    return f"{grant_id}.{secrets.token_urlsafe(32)}"


def _access_token(store: Store, db: sqlite3.Connection, grant_id: str, app_id: str,
                  user_id: str, scopes: frozenset[str], guilds: frozenset[str],
                  now: float) -> str:
    value = secrets.token_urlsafe(32)
    store.save_token(db, Token(value, "bearer", app_id, user_id, scopes,
                               now + TOKEN_LIFETIME, guilds, grant_id))
    return value

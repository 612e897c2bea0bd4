"""Where ``cmdsync login`` keeps a user's tokens: the OS keyring, else a file only
the user can read.

A :class:`Login` is keyed by its :class:`Place` (the API URL, the application
and the environment of cmdsync.toml) and its user; each place also records
its current user (the last one logged in), which plan and apply use.

- :class:`KeyringStore`: the ``keyring`` library's backend (macOS Keychain,
  Windows Credential Locker, the Secret Service), service ``cmdsync``;
  used when one is available, never the fail or null backend (set
  ``PYTHON_KEYRING_BACKEND=keyring.backends.null.Keyring`` to keep tokens
  out of the keyring);
- :class:`FileStore`: ``logins.json`` in ``platformdirs.user_config_dir("cmdsync")``
  (or ``$CMDSYNC_CONFIG_DIR``), created with mode 0600 and replaced atomically.

:func:`default_store` picks one. Tokens never appear in a ``repr``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from cmdsync.client.redact import remember
from cmdsync.errors import CmdsyncError

SERVICE = "cmdsync"
FILE_NAME = "logins.json"
CONFIG_DIR_VARIABLE = "CMDSYNC_CONFIG_DIR"


@dataclass(frozen=True)
class Place:
    """Where a login is valid: an API URL, an application, an environment ("" for none)."""

    api_url: str
    application_id: str
    environment: str = ""

    @property
    def key(self) -> str:
        return f"{self.api_url.rstrip('/')}|{self.application_id}|{self.environment}"


@dataclass(frozen=True)
class Login:
    """A user's tokens for a place; ``expires_at`` in epoch seconds."""

    place: Place
    user_id: str
    user_name: str
    scopes: tuple[str, ...]
    expires_at: float
    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)

    @property
    def key(self) -> str:
        return f"{self.place.key}|{self.user_id}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["scopes"] = list(self.scopes)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Login:
        """Raises KeyError or TypeError on a malformed record."""
        login = cls(Place(**data["place"]), str(data["user_id"]), str(data["user_name"]),
                    tuple(data["scopes"]), float(data["expires_at"]),
                    str(data["access_token"]), str(data["refresh_token"]))
        remember(login.access_token)
        remember(login.refresh_token)
        return login


class Store(Protocol):
    """Saves, finds and forgets logins; ``where`` names it for messages."""

    where: str

    def save(self, login: Login) -> None: ...

    def current(self, place: Place) -> Login | None: ...

    def forget(self, login: Login) -> None: ...


class FileStore:
    """Logins in one JSON file, mode 0600, replaced atomically on each change."""

    def __init__(self, directory: str) -> None:
        self.path = os.path.join(directory, FILE_NAME)
        self.where = self.path

    def _read(self) -> dict[str, Any]:
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            return {"logins": {}, "current": {}}
        except (OSError, ValueError) as exc:
            raise CmdsyncError(f"cannot read {self.path}: {exc}: delete it and run "
                               "`cmdsync login` again") from None
        if not isinstance(data, dict):
            raise CmdsyncError(f"{self.path} is not cmdsync's: delete it and run "
                               "`cmdsync login` again")
        data.setdefault("logins", {})
        data.setdefault("current", {})
        return data

    def _write(self, data: dict[str, Any]) -> None:
        directory = os.path.dirname(self.path)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".logins-", dir=directory)  # mode 0600
        try:
            os.fchmod(handle, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=2)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    def save(self, login: Login) -> None:
        data = self._read()
        data["logins"][login.key] = login.to_json()
        data["current"][login.place.key] = login.user_id
        self._write(data)

    def current(self, place: Place) -> Login | None:
        data = self._read()
        user = data["current"].get(place.key)
        record = data["logins"].get(f"{place.key}|{user}") if user else None
        try:
            return Login.from_json(record) if record else None
        except (KeyError, TypeError, ValueError):
            raise CmdsyncError(f"{self.path}: the login for {place.key} is damaged: run "
                               "`cmdsync login` again") from None

    def forget(self, login: Login) -> None:
        data = self._read()
        data["logins"].pop(login.key, None)
        if data["current"].get(login.place.key) == login.user_id:
            del data["current"][login.place.key]
        self._write(data)


class KeyringStore:
    """Logins in the OS keyring: one entry per login, one naming each place's user."""

    where = "the system keyring"

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def save(self, login: Login) -> None:
        self._backend.set_password(SERVICE, login.key, json.dumps(login.to_json()))
        self._backend.set_password(SERVICE, "current|" + login.place.key, login.user_id)

    def current(self, place: Place) -> Login | None:
        user = self._backend.get_password(SERVICE, "current|" + place.key)
        record = self._backend.get_password(SERVICE, f"{place.key}|{user}") if user else None
        try:
            return Login.from_json(json.loads(record)) if record else None
        except (KeyError, TypeError, ValueError):
            raise CmdsyncError(f"the keyring's login for {place.key} is damaged: run "
                               "`cmdsync login` again") from None

    def forget(self, login: Login) -> None:
        import keyring.errors

        for name in (login.key, "current|" + login.place.key):
            try:
                self._backend.delete_password(SERVICE, name)
            except keyring.errors.PasswordDeleteError:
                pass  # already gone


def default_store(env: Mapping[str, str] | None = None) -> Store:
    """The keyring when a usable backend is found (not with ``$CMDSYNC_CONFIG_DIR``
    set), else the file in the user's config directory."""
    env = os.environ if env is None else env
    if env.get(CONFIG_DIR_VARIABLE):
        return FileStore(env[CONFIG_DIR_VARIABLE])
    backend = _keyring()
    if backend is not None:
        return KeyringStore(backend)
    import platformdirs

    return FileStore(platformdirs.user_config_dir("cmdsync"))


def _keyring() -> Any:
    """The keyring backend, or None when only the fail/null backend (or none) is found."""
    try:
        import keyring
        from keyring.backends import chainer, fail, null
    except ImportError:  # pragma: no cover - a dependency
        return None
    backend = keyring.get_keyring()
    if isinstance(backend, (fail.Keyring, null.Keyring)):
        return None
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return None
    return backend

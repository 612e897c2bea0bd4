"""The emulator's OAuth2 consent page, driven as a browser would, with an HTTP client.

- :func:`pkce`: a PKCE verifier and its S256 challenge.
- :func:`read_form`: the consent page's form (action, hidden fields, users).
- :func:`consent`: open ``/oauth2/authorize``, pick a user, click Authorize
  or Cancel; returns the redirect's ``Location`` (not followed).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import httpx


def pkce() -> tuple[str, str]:
    """``(verifier, challenge)``: RFC 7636's S256 pair."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@dataclass
class Form:
    """The consent form: where it posts, its hidden fields, the users offered."""

    action: str = ""
    hidden: dict[str, str] = field(default_factory=dict)
    users: list[str] = field(default_factory=list)
    buttons: list[str] = field(default_factory=list)


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.form = Form()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.form.action = values.get("action", "")
        elif tag == "input" and values.get("type") == "hidden":
            self.form.hidden[values["name"]] = values.get("value", "")
        elif tag == "input" and values.get("type") == "radio":
            self.form.users.append(values["value"])
        elif tag == "button":
            self.form.buttons.append(values.get("value", ""))


def read_form(page: str) -> Form:
    parser = _FormParser()
    parser.feed(page)
    return parser.form


def consent(client: httpx.Client, params: dict[str, str], *, user_id: str | None = None,
            decision: str = "authorize", path: str = "/oauth2/authorize") -> str:
    """The ``Location`` the emulator redirects to once ``user_id`` (the first user
    offered when None) clicks ``decision`` on the page of ``params``."""
    page = client.get(path, params=params)
    assert page.status_code == 200, page.text
    form = read_form(page.text)
    data = {**form.hidden, "user_id": user_id or form.users[0], "decision": decision}
    answer = client.post(form.action, data=data)
    assert answer.status_code == 302, answer.text
    return answer.headers["location"]


def query_of(location: str) -> dict[str, str]:
    """The query parameters of a redirect's ``Location`` (each given once)."""
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}

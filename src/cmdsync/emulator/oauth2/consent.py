"""``/oauth2/authorize``: the consent page of OAuth2's authorization-code flow.

Served at the emulator's root (Discord serves it at
``https://discord.com/oauth2/authorize``) and under the API prefixes.
Discord's "OAuth2" topic ("Authorization Code Grant"), RFC 6749 4.1 and RFC
7636 (PKCE):

``GET /oauth2/authorize?response_type=code&client_id=...&redirect_uri=...&scope=...
[&state=...][&code_challenge=...&code_challenge_method=S256]`` answers an HTML
page naming the application and the scopes it asks for, where one of the
seed's users is picked (the emulator has no login) and Authorize or Cancel is
clicked. The form posts back to the same path with a nonce that stands for
the request (:mod:`cmdsync.emulator.oauth2.grants`: its parameters stay on the
server, usable once, for 10 minutes). The answer is a 302 to
``redirect_uri?code=...&state=...``, or ``?error=access_denied&state=...``
for Cancel.

Errors (RFC 6749 4.1.2.1): an unknown or missing ``client_id``, or a
``redirect_uri`` not registered for the application (the seed's
``applications[].redirect_uris``, matched exactly) or missing while the
application has several, are shown on an error page (400) and never
redirected to. Once the redirect URI is known, the other problems redirect
with ``error``: ``invalid_request`` (a parameter given twice, a
``code_challenge`` that is not 43-128 characters of ``[A-Za-z0-9-._~]``, a
``code_challenge_method`` other than ``S256``), ``unsupported_response_type``
(``response_type`` other than ``code``) and ``invalid_scope`` (no scope, or
one not in :data:`~cmdsync.emulator.oauth2.tokens.AUTHORIZE_SCOPES`), each with an
``error_description`` and the ``state``.

The page answers only requests addressed to a loopback name (``localhost``,
``127.0.0.0/8``, ``::1``) or the host the emulator listens on, as the admin
API and the console do (:func:`cmdsync.emulator.admin._guarded`): another
``Host`` is 403, with a page saying which hosts it answers. A page of another
site that rebinds its own name to 127.0.0.1 (DNS rebinding) is then
same-origin with the emulator but still names its own host, so it can neither
read the page's nonce nor post the user's decision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from typing import Protocol
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from cmdsync.emulator.domain.objects import Application, User
from cmdsync.emulator.oauth2 import grants
from cmdsync.emulator.oauth2.tokens import AUTHORIZE_SCOPES
from cmdsync.emulator.reference.access import foreign_host
from cmdsync.emulator.reference.log import LogEntry, RequestLog
from cmdsync.emulator.store.database import Store
from cmdsync.errors import EmulatorError

MAX_FORM_BYTES = 16_384
MAX_VALUE = 2048  # characters of one query parameter
_CHALLENGE = re.compile(r"[A-Za-z0-9._~-]{43,128}")
# Discord's "OAuth2 Scopes" table, in the words of its "Description" column.
SCOPE_WORDS = {
    "identify": "know who you are: your username, avatar and banner (/users/@me, without "
                "email)",
    "email": "see your email address",
    "guilds": "see the servers you are in (/users/@me/guilds)",
    "guilds.members.read": "read your member information in your servers",
    "connections": "see your linked third-party accounts",
    "applications.commands": "use commands in a server",
    "applications.commands.permissions.update": "update permissions for its commands in "
                                                "the servers you may manage",
}
_HEADERS = {
    "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",  # no clickjacking of the Authorize button
    # Only the inline style; no script, image or font, nothing fetched elsewhere.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
                               "frame-ancestors 'none'; base-uri 'none'",
}


class Emulator(Protocol):
    """What the consent page uses of the emulator it is served by (an
    :class:`~cmdsync.emulator.instance.Emulator`): its state, clock and request log."""

    store: Store
    log: RequestLog

    def clock(self) -> float: ...



class _Refused(EmulatorError):
    """A request that goes back to the client: ``error`` and its description."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(error)
        self.error = error
        self.description = description


class _Unsafe(EmulatorError):
    """A request that is never redirected: shown on an error page."""


@dataclass(frozen=True)
class _Target:
    """Where the answer goes, once the client and its redirect URI are known."""

    app: Application
    redirect_uri: str
    given: bool
    state: str | None


async def authorize(request: Request) -> Response:
    """``GET`` (the page) or ``POST`` (the user's decision) ``/oauth2/authorize``."""
    emulator: Emulator = request.app.state.emulator
    host = foreign_host(request)
    if host is not None:
        response: Response = _error_page(
            f"This page answers only requests for localhost, 127.0.0.1, [::1] or the host "
            f"the emulator listens on, not {host or 'no host'!r}: open it by one of those "
            "(another name may be a web page reaching the emulator by DNS rebinding).",
            status=403)
    elif request.method == "POST":
        response = await _decide(request, emulator)
    else:
        response = _ask(request, emulator)
    emulator.log.record(LogEntry(request.method, request.url.path,
                                 f"{request.method} /oauth2/authorize",
                                 response.status_code, emulator.clock(), kind="token"))
    return response


def _ask(request: Request, emulator: Emulator) -> Response:
    query: dict[str, list[str]] = {}
    for name, value in request.query_params.multi_items():
        query.setdefault(name, []).append(value)
    try:
        target = _target(emulator, query)
    except _Unsafe as problem:
        return _error_page(str(problem))
    try:
        pending = _pending(target, query)
    except _Refused as refused:
        return _redirect(target.redirect_uri, {"error": refused.error,
                                               "error_description": refused.description},
                         target.state)
    users = emulator.store.users()
    if not users:
        return _error_page("The emulator's seed has no users, so nobody can log in: add "
                           "one to the seed's users.")
    nonce = grants.save_pending(emulator.store, pending, now=emulator.clock())
    return HTMLResponse(_page(target.app, pending, users, nonce, request.url.path),
                        headers=_HEADERS)


def _target(emulator: Emulator, query: dict[str, list[str]]) -> _Target:
    """The client and the redirect URI, or :class:`_Unsafe` (RFC 6749 4.1.2.1)."""
    for name in ("client_id", "redirect_uri"):
        if len(query.get(name, [])) > 1:
            raise _Unsafe(f"{name} is given more than once.")
    client_id = (query.get("client_id") or [""])[0]
    if not client_id:
        raise _Unsafe("client_id is missing: give the application's id.")
    app = emulator.store.application(client_id) if client_id.isdigit() else None
    if app is None:
        raise _Unsafe(f"Unknown client_id {client_id}: it is none of the applications "
                      "of the emulator's seed.")
    given = query.get("redirect_uri")
    if given and given[0] not in app.redirect_uris:
        raise _Unsafe(f"The redirect_uri {given[0]} is not registered for {app.name} "
                      f"({app.id}). Redirect URIs are matched exactly: add it to the "
                      "application's redirect_uris in the emulator's seed (on Discord: "
                      "OAuth2 Redirects in the Developer Portal).")
    if not given and len(app.redirect_uris) != 1:
        raise _Unsafe("redirect_uri is missing: give one of the application's redirect "
                      "URIs." if app.redirect_uris else
                      f"{app.name} ({app.id}) has no redirect URI: add one to the "
                      "application's redirect_uris in the emulator's seed.")
    states = query.get("state")
    return _Target(app, given[0] if given else app.redirect_uris[0], bool(given),
                   states[0] if states else None)


def _pending(target: _Target, query: dict[str, list[str]]) -> grants.Pending:
    """The request to keep while the page is shown, or :class:`_Refused`."""
    for name, values in query.items():
        if len(values) > 1:
            raise _Refused("invalid_request", f"{name} is given more than once.")
        if len(values[0]) > MAX_VALUE:
            raise _Refused("invalid_request", f"{name} is longer than {MAX_VALUE} "
                           "characters.")
    value = {name: values[0] for name, values in query.items()}
    if not value.get("response_type"):
        raise _Refused("invalid_request", "response_type is missing: give "
                       "response_type=code.")
    if value["response_type"] != "code":
        raise _Refused("unsupported_response_type", "response_type must be code.")
    scopes = value.get("scope", "").split()
    unknown = [scope for scope in scopes if scope not in AUTHORIZE_SCOPES]
    if not scopes or unknown:
        raise _Refused("invalid_scope", f"Unknown scope {unknown[0]}." if unknown
                       else "scope is missing.")
    challenge, method = value.get("code_challenge"), value.get("code_challenge_method")
    if challenge is None and method is not None:
        raise _Refused("invalid_request", "code_challenge_method without code_challenge.")
    if challenge is not None and method != "S256":
        raise _Refused("invalid_request", "code_challenge_method must be S256 (plain is "
                       "not accepted).")
    if challenge is not None and not _CHALLENGE.fullmatch(challenge):
        raise _Refused("invalid_request", "code_challenge must be 43 to 128 characters of "
                       "A-Z a-z 0-9 - . _ ~ (RFC 7636).")
    return grants.Pending(target.app.id, target.redirect_uri, target.given,
                          tuple(dict.fromkeys(scopes)), target.state, challenge)


async def _decide(request: Request, emulator: Emulator) -> Response:
    """The form's answer: a redirect with a code or ``access_denied``."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return _error_page("The form is too large.", status=413)
    try:
        form = {k: v[-1] for k, v in parse_qs(body.decode("utf-8")).items()}
    except UnicodeDecodeError:
        form = {}
    now = emulator.clock()
    pending = grants.take_pending(emulator.store, form.get("request", ""), now=now)
    if pending is None:
        return _error_page("This authorization request has expired or was already "
                           "answered: start the login again from the application.")
    decision = form.get("decision")
    if decision == "cancel":
        return _redirect(pending.redirect_uri, {"error": "access_denied",
                                                "error_description": "The user cancelled."},
                         pending.state)
    user_id = form.get("user_id", "")
    if decision != "authorize" or emulator.store.user(user_id) is None:
        return _error_page("Pick one of the listed users, then Authorize or Cancel: start "
                           "the login again from the application.")
    code = grants.save_code(emulator.store, grants.Code(
        pending.client_id, user_id, pending.redirect_uri if pending.given_redirect else "",
        pending.scopes, pending.challenge, now + grants.CODE_LIFETIME), now=now)
    return _redirect(pending.redirect_uri, {"code": code}, pending.state)


def _redirect(uri: str, params: dict[str, str], state: str | None) -> Response:
    """302 to ``uri`` with ``params`` (and ``state``) added to its query (RFC 6749 4.1.2)."""
    if state is not None:
        params = {**params, "state": state}
    parts = urlsplit(uri)
    query = "&".join(part for part in (parts.query, urlencode(params)) if part)
    return RedirectResponse(urlunsplit(parts._replace(query=query)), status_code=302,
                            headers={"Cache-Control": "no-store",
                                     "Referrer-Policy": "no-referrer"})


_STYLE = """
body { font-family: system-ui, sans-serif; background: #313338; color: #f2f3f5;
       display: flex; justify-content: center; margin: 0; padding: 2rem 1rem; }
main { background: #2b2d31; border-radius: 8px; padding: 1.5rem; max-width: 28rem;
       width: 100%; }
h1 { font-size: 1.3rem; } h2 { font-size: 1rem; }
.note { color: #b5bac1; font-size: .9rem; }
fieldset { border: 1px solid #4e5058; border-radius: 4px; }
label { margin-left: .4rem; }
code { word-break: break-all; }
.actions { display: flex; justify-content: flex-end; gap: .75rem; margin-top: 1.5rem; }
button { font-size: 1rem; padding: .5rem 1.2rem; border-radius: 4px; border: 0;
         cursor: pointer; background: #4e5058; color: #fff; }
button[value=authorize] { background: #5865f2; }
button:focus-visible, input:focus-visible { outline: 3px solid #00a8fc; }
"""


def _document(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
            f"<body>\n<main>\n{body}</main>\n</body>\n</html>\n")


def _page(app: Application, pending: grants.Pending, users: list[User],
          nonce: str, action: str) -> str:
    """The consent page: every value it shows is escaped."""
    name = escape(app.name)
    choices = []
    for index, user in enumerate(users):
        user_id = escape(str(user["id"]))
        label = escape(str(user.get("username") or f"user{str(user['id'])[-4:]}"))
        checked = " checked" if index == 0 else ""
        choices.append(f"<div><input type=\"radio\" id=\"user-{index}\" name=\"user_id\" "
                       f"value=\"{user_id}\"{checked}><label for=\"user-{index}\">{label} "
                       f"({user_id})</label></div>\n")
    scopes = "".join(f"<li><code>{escape(scope)}</code>: {escape(SCOPE_WORDS[scope])}</li>\n"
                     for scope in pending.scopes)
    body = (f"<h1>{name} wants to access your account</h1>\n"
            "<p class=\"note\">The cmdsync emulator stands in for Discord here. It has no "
            "login: pick the seeded user who approves.</p>\n"
            f"<form method=\"post\" action=\"{escape(action)}\">\n"
            f"<input type=\"hidden\" name=\"request\" value=\"{escape(nonce)}\">\n"
            f"<fieldset>\n<legend>Log in as</legend>\n{''.join(choices)}</fieldset>\n"
            f"<h2 id=\"scopes\">This will allow {name} to:</h2>\n"
            f"<ul aria-labelledby=\"scopes\">\n{scopes}</ul>\n"
            f"<p class=\"note\">Then you are sent to <code>"
            f"{escape(pending.redirect_uri)}</code></p>\n"
            "<div class=\"actions\">\n"
            "<button type=\"submit\" name=\"decision\" value=\"cancel\">Cancel</button>\n"
            "<button type=\"submit\" name=\"decision\" value=\"authorize\">Authorize</button>\n"
            "</div>\n</form>\n")
    return _document(f"Authorize {app.name}: cmdsync emulator", body)


def _error_page(message: str, *, status: int = 400) -> HTMLResponse:
    """An error shown to the user, never redirected (RFC 6749 4.1.2.1)."""
    body = (f"<h1>Authorization failed</h1>\n<p role=\"alert\">{escape(message)}</p>\n"
            "<p class=\"note\">cmdsync emulator: nothing was sent to the application.</p>\n")
    return HTMLResponse(_document("Authorization failed: cmdsync emulator", body),
                        status_code=status, headers=_HEADERS)

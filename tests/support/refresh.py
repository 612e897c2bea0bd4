"""A user's refresh token from the served emulator, as `cmdsync login` gets one, and
the token endpoint's answer to one presented (the emulator rotates them as Discord
does: a refresh token presented twice gets ``invalid_grant``).

- :func:`log_in`: consent as the seeded user, then the code exchanged (PKCE S256).
- :func:`refresh`: ``POST /oauth2/token`` with ``grant_type=refresh_token``.
"""

from __future__ import annotations

import httpx

from tests.support.consent import consent, pkce, query_of
from tests.support.emulator import APP

SECRET = "emulator-secret"
REDIRECT = "http://127.0.0.1:53682/callback"  # the default seed's
SCOPES = "identify guilds applications.commands.permissions.update"


def log_in(api: str) -> dict[str, str]:
    """The token response of a login at ``api`` (``http://host:port/api/v10``)."""
    verifier, challenge = pkce()
    with httpx.Client(base_url=api.removesuffix("/api/v10")) as client:
        code = query_of(consent(client, {
            "response_type": "code", "client_id": APP, "redirect_uri": REDIRECT,
            "scope": SCOPES, "state": "s", "code_challenge": challenge,
            "code_challenge_method": "S256"}))["code"]
        granted = client.post("/api/v10/oauth2/token", auth=(APP, SECRET), data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
            "code_verifier": verifier})
    assert granted.status_code == 200, granted.text
    return dict(granted.json())


def refresh(api: str, token: str) -> httpx.Response:
    """The token endpoint's answer to ``token`` presented now."""
    return httpx.post(f"{api}/oauth2/token", auth=(APP, SECRET),
                      data={"grant_type": "refresh_token", "refresh_token": token})

"""Discord's error responses, as the emulator raises them.

Every error the emulator answers is an :class:`ErrorReply`: an HTTP status, a
Discord JSON error code and its message, optionally the nested ``errors``
object of a 50035 (see :mod:`cmdsync.emulator.reference.form_body`) and extra
headers. ``body()`` is what goes on the wire, e.g.
``{"message": "Unknown application command", "code": 10063}``. Codes and
messages: Discord's "Opcodes and Status Codes" documentation; the messages are Discord's own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from cmdsync.errors import EmulatorError


class ErrorReply(EmulatorError):
    """An error response: HTTP status, Discord code, message, optional details.

    ``code`` is None only for a rate limit's 429, whose body is
    ``{"message", "retry_after", "global"}`` (Discord's "Rate Limits" documentation).
    ``retry_after`` (seconds) adds ``retry_after`` and ``global`` to the body.
    """

    def __init__(self, status: int, code: int | None, message: str, *,
                 errors: dict[str, Any] | None = None,
                 headers: Mapping[str, str] | None = None,
                 retry_after: float | None = None, is_global: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.headers = dict(headers or {})
        self.retry_after = retry_after
        self.is_global = is_global

    def body(self) -> dict[str, Any]:
        """``{"message", "code"}``, plus ``errors`` for a 50035, ``retry_after`` for a 429."""
        body: dict[str, Any] = {"message": self.message}
        if self.code is not None:
            body["code"] = self.code
        if self.errors is not None:
            body["errors"] = self.errors
        if self.retry_after is not None:
            body["retry_after"] = self.retry_after
            body["global"] = self.is_global
        return body


def unauthorized() -> ErrorReply:
    """A missing, unknown or expired token."""
    return ErrorReply(401, 0, "401: Unauthorized")


def missing_scope() -> ErrorReply:
    """A bearer token without the OAuth2 scope the endpoint needs (observed as 40001)."""
    return ErrorReply(401, 40001, "Unauthorized. Provide a valid token and try again")


_PATH_TOKEN = re.compile(r"(/(?:webhooks|interactions)/[^/]+/)[^/]+")


def shown_path(path: str) -> str:
    """``path`` with the token of a webhook or interaction path as ``{token}`` (it is a
    credential)."""
    return _PATH_TOKEN.sub(r"\1{token}", path)


def not_emulated(method: str, path: str) -> ErrorReply:
    """A path the emulator does not serve (Discord may): 404 code 0 naming it, with the
    token of a webhook or interaction path shown as ``{token}``."""
    return ErrorReply(404, 0, f"404: Not Found (not emulated by cmdsync: {method} "
                              f"{shown_path(path)})")


def method_not_allowed() -> ErrorReply:
    return ErrorReply(405, 0, "405: Method Not Allowed")


def other_application() -> ErrorReply:
    return ErrorReply(403, 20012, "You are not authorized to perform this action on this "
                                "application")


def bots_forbidden() -> ErrorReply:
    return ErrorReply(403, 20001, "Bots cannot use this endpoint")


def bots_only() -> ErrorReply:
    """A Bearer token on an endpoint for bot tokens only (Discord's code 20002)."""
    return ErrorReply(403, 20002, "Only bots can use this endpoint")


def missing_access() -> ErrorReply:
    """The application is not installed in the guild (with applications.commands)."""
    return ErrorReply(403, 50001, "Missing Access")


def missing_permissions() -> ErrorReply:
    """The token's user may not manage the guild."""
    return ErrorReply(403, 50013, "Missing Permissions")


_UNKNOWN = {"application": (10002, "Unknown Application"),
            "channel": (10003, "Unknown Channel"),
            "guild": (10004, "Unknown Guild"),
            "member": (10007, "Unknown Member"),
            "user": (10013, "Unknown User"),
            "command": (10063, "Unknown application command"),
            "permissions": (10066, "Unknown application command permissions"),
            "webhook": (10015, "Unknown Webhook")}


def unknown(what: str) -> ErrorReply:
    """404 for an unknown ``application``, ``channel``, ``guild``, ``member``, ``user``,
    ``command``, ``permissions`` or ``webhook``."""
    code, message = _UNKNOWN[what]
    return ErrorReply(404, code, message)


def unknown_interaction() -> ErrorReply:
    """An interaction callback with an unknown id or token, or after its deadline."""
    return ErrorReply(404, 10062, "Unknown interaction")


def unknown_message() -> ErrorReply:
    return ErrorReply(404, 10008, "Unknown Message")


def already_acknowledged() -> ErrorReply:
    return ErrorReply(400, 40060, "Interaction has already been acknowledged.")


def invalid_webhook_token() -> ErrorReply:
    """A follow-up with an unknown or expired (15 minutes) interaction token."""
    return ErrorReply(401, 50027, "Invalid Webhook Token")


def empty_message() -> ErrorReply:
    return ErrorReply(400, 50006, "Cannot send an empty message")


def not_a_text_channel() -> ErrorReply:
    """A message sent to a category or a forum (a forum takes threads)."""
    return ErrorReply(400, 50008, "Cannot send messages in a non-text channel")


def another_users_message() -> ErrorReply:
    """An edit of a message the bot did not write."""
    return ErrorReply(403, 50005, "Cannot edit a message authored by another user")


def too_many_commands() -> ErrorReply:
    return ErrorReply(400, 30032, "Maximum number of application commands reached")


def too_many_daily_creates(limit: int, *, status: int = 400,
                           retry_after: float = 0.0) -> ErrorReply:
    """30034; Discord has answered it as 400 and as 429 (Discord has answered both ways)."""
    message = f"Max number of daily application command creates has been reached ({limit})"
    if status != 429:
        return ErrorReply(status, 30034, message)
    return ErrorReply(429, 30034, message, retry_after=round(retry_after, 3),
                    headers={"Retry-After": str(math.ceil(retry_after)),
                             "X-RateLimit-Scope": "user"})


def rate_limited(retry_after: float, headers: Mapping[str, str], *,
                 is_global: bool) -> ErrorReply:
    """429 ``{"message": "You are being rate limited.", "retry_after", "global"}``."""
    return ErrorReply(429, None, "You are being rate limited.", headers=headers,
                    retry_after=round(retry_after, 3), is_global=is_global)


def name_taken() -> ErrorReply:
    """A PATCH renaming a command onto another command's name."""
    return ErrorReply(400, 40041, "An application command with that name already exists")


def entry_point_removed() -> ErrorReply:
    """A bulk overwrite that leaves out the existing entry point (observed)."""
    return ErrorReply(400, 50240, "You cannot remove this app's Entry Point command in a bulk "
                                "update operation. Please include the Entry Point command in "
                                "your update request or delete it separately.")


def invalid_json() -> ErrorReply:
    return ErrorReply(400, 50109, "The request body contains invalid JSON.")


def too_large() -> ErrorReply:
    return ErrorReply(413, 40005, "Request entity too large")


def invalid_form(errors: dict[str, Any]) -> ErrorReply:
    """400 code 50035 with Discord's nested ``errors`` object."""
    return ErrorReply(400, 50035, "Invalid Form Body", errors=errors)


def field_error(path: tuple[str, ...], code: str, message: str) -> ErrorReply:
    """50035 with one leaf at ``path`` (``()`` for the whole request, ``errors._errors``)."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path):
        errors = {part: errors}
    return invalid_form(errors)

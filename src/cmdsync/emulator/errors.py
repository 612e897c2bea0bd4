"""Discord-shaped API errors, and cmdsync diagnostics turned into a 50035 body.

Body of every error: ``{"code": int, "message": str}`` plus, for 50035
(Invalid Form Body), ``errors`` nested by key and array index down to the
failing field, whose leaf is ``{"_errors": [{"code", "message"}]}``
(FACTS.md "Errors").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cmdsync.diagnostics import Diagnostic


class ApiError(Exception):
    """An error response: HTTP status, Discord code, message, optional details."""

    def __init__(self, status: int, code: int, message: str, *,
                 errors: dict[str, Any] | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def unauthorized() -> ApiError:
    return ApiError(401, 0, "401: Unauthorized")


def not_found() -> ApiError:
    return ApiError(404, 0, "404: Not Found")


def method_not_allowed() -> ApiError:
    return ApiError(405, 0, "405: Method Not Allowed")


def unknown(what: str) -> ApiError:
    """404 for an unknown application, guild, command or permission set."""
    codes = {"application": (10002, "Unknown Application"),
             "guild": (10004, "Unknown Guild"),
             "command": (10063, "Unknown application command"),
             "permissions": (10066, "Unknown application command permissions")}
    code, message = codes[what]
    return ApiError(404, code, message)


def invalid_form(errors: dict[str, Any]) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", errors=errors)


def whole_request_error(code: str, message: str) -> ApiError:
    """50035 with the problem at ``errors._errors`` (not tied to one field)."""
    return invalid_form({"_errors": [{"code": code, "message": message}]})


# Leaf codes Discord uses for what each rule checks. Codes FACTS.md lists are
# used as is; the rest follow Discord's naming (documented as emulator-only).
_LEAF_CODES = {
    "CS011": "BASE_TYPE_INVALID",
    "CS012": "BASE_TYPE_REQUIRED",
    "CS013": "BASE_TYPE_CHOICES",
    "CS016": "BASE_TYPE_CHOICES",
    "CS101": "APPLICATION_COMMAND_INVALID_NAME",
    "CS102": "BASE_TYPE_BAD_LENGTH",
    "CS103": "BASE_TYPE_BAD_LENGTH",
    "CS104": "APPLICATION_COMMAND_INVALID_DESCRIPTION",
    "CS105": "LOCALE_INVALID",
    "CS201": "BASE_TYPE_MAX_LENGTH",
    "CS202": "BASE_TYPE_MAX_LENGTH",
    "CS203": "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
    "CS204": "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
    "CS207": "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
    "CS301": "APPLICATION_COMMAND_TOO_LARGE",
    "CS303": "APPLICATION_COMMANDS_DUPLICATE_NAME",
}


def form_errors(diagnostics: Iterable[Diagnostic], *, strip_index: bool) -> dict[str, Any]:
    """Nest diagnostics by their JSON pointer into Discord's ``errors`` object.

    ``strip_index`` drops the leading array index, for single-command bodies
    that were validated as a one-item array.
    """
    errors: dict[str, Any] = {}
    for diag in diagnostics:
        parts = [p.replace("~1", "/").replace("~0", "~")
                 for p in diag.location.pointer.split("/")[1:]]
        if strip_index and parts:
            parts = parts[1:]
        node = errors
        for part in parts:
            node = node.setdefault(part, {})
        leaf = {"code": _LEAF_CODES.get(diag.rule, "BASE_TYPE_INVALID"),
                "message": diag.message}
        node.setdefault("_errors", []).append(leaf)
    return errors

"""The manifest schema for editors: one self-contained file with Discord's limits in it.

``cmdsync validate`` checks shapes with ``schemas/manifest.schema.json`` and
``application-command.schema.json`` and leaves lengths, counts and name rules
to its rules, each with a stable id and a message that says how to fix it.
An editor only has the schema, so :func:`editor_schema` builds one for it
(``cmdsync schema``): the two files in one (the command schema under
``$defs/command``), a versioned ``$id``, and what Discord enforces in JSON
Schema terms (Discord's "Application Commands" documentation: names 1-32
characters, CHAT_INPUT and option names lowercase from
``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``, descriptions 1-100
characters, at most 25 options and 25 choices, choice names 1-100
characters; USER and MESSAGE commands take no description (or "") and no
options). Response-only keys stay allowed (cmdsync warns, CS014) but are not
offered for completion (``doNotSuggest``, the YAML language server's
extension, and ``deprecated``). Patterns use ECMA-262 with the ``u`` flag,
as editors and ``check-jsonschema`` read them.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from cmdsync.model import MAX_CHOICES, MAX_OPTIONS
from cmdsync.validate.schema import COMMAND_SCHEMA, MANIFEST_SCHEMA, load_schema

SCHEMA_VERSION = 1
SCHEMA_ID = f"https://cmdsync.github.io/schemas/v{SCHEMA_VERSION}/manifest.schema.json"
# Discord's name pattern, and no upper-case letter (names are lowercase where a letter
# has a lowercase form).
CHAT_INPUT_NAME = r"^(?!.*\p{Lu})[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$"
RESPONSE_ONLY = ("application_id", "version", "guild_id", "name_localized",
                 "description_localized", "default_permission")
_CHAT_INPUT = [1, "chat_input"]
_CONTEXT_MENU = [2, 3, "user", "message"]


def editor_schema() -> dict[str, Any]:
    """The editor schema; see the module docstring."""
    manifest = copy.deepcopy(load_schema(MANIFEST_SCHEMA))
    command = copy.deepcopy(load_schema(COMMAND_SCHEMA))
    defs = manifest["$defs"]
    defs.update(command.pop("$defs"))
    command.pop("$schema", None)
    defs["command"] = command
    _replace_refs(manifest, {COMMAND_SCHEMA: "#/$defs/command"})
    schema = {"$schema": manifest.pop("$schema"), "$id": SCHEMA_ID, **manifest}
    schema["title"] = f"cmdsync manifest (schema v{SCHEMA_VERSION})"
    schema["description"] += (" Written by `cmdsync schema`; Discord's limits are checked "
                              "here too, so editors flag them as you type.")
    _limit_command(command)
    _limit_option(defs["option"])
    _limit_choice(defs["choice"])
    return schema


def dumps() -> str:
    """The editor schema as the text `cmdsync schema` prints (indented JSON)."""
    return json.dumps(editor_schema(), indent=2, ensure_ascii=False) + "\n"


def _replace_refs(node: Any, refs: dict[str, str]) -> None:
    if isinstance(node, dict):
        if node.get("$ref") in refs:
            node["$ref"] = refs[node["$ref"]]
        for value in node.values():
            _replace_refs(value, refs)
    elif isinstance(node, list):
        for value in node:
            _replace_refs(value, refs)


def _limit_command(command: dict[str, Any]) -> None:
    props = command["properties"]
    props["name"].update(minLength=1, maxLength=32)
    props["description"].update(maxLength=100)
    props["options"].update(maxItems=MAX_OPTIONS)
    for key in RESPONSE_ONLY:
        if key in props:
            props[key].update(doNotSuggest=True, deprecated=True)
    chat_input = {"anyOf": [{"not": {"required": ["type"]}},
                            {"properties": {"type": {"enum": _CHAT_INPUT}}}]}
    command["allOf"] = [
        {"if": chat_input,
         "then": {"required": ["description"],
                  "properties": {"name": {"pattern": CHAT_INPUT_NAME},
                                 "description": {"minLength": 1}}}},
        {"if": {"required": ["type"], "properties": {"type": {"enum": _CONTEXT_MENU}}},
         "then": {"properties": {"description": {"maxLength": 0},
                                 "description_localizations": {"type": "null"},
                                 "options": False}}},
    ]


def _limit_option(option: dict[str, Any]) -> None:
    props = option["properties"]
    props["name"].update(pattern=CHAT_INPUT_NAME)
    props["description"].update(minLength=1, maxLength=100)
    props["options"].update(maxItems=MAX_OPTIONS)
    props["choices"].update(maxItems=MAX_CHOICES)
    for key in RESPONSE_ONLY:
        if key in props:
            props[key].update(doNotSuggest=True, deprecated=True)


def _limit_choice(choice: dict[str, Any]) -> None:
    choice["properties"]["name"].update(minLength=1, maxLength=100)

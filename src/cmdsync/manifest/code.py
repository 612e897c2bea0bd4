"""Commands defined in bot code as a manifest source: ``discord.py:MODULE:ATTR``.

``MODULE:ATTR`` names a discord.py ``app_commands.CommandTree``, a
``Client``/``Bot`` whose ``.tree`` is one, or a factory: a function of
``MODULE`` itself taking no arguments (async too, to ``await
tree.set_translator(...)``) returning either. Nothing else is called.
The module is imported (the working directory first on ``sys.path``, as
``python -m`` does); no bot runs, no token is read, nothing logs in.
discord.py itself gives the payloads its ``CommandTree.sync()`` would send
(its ``to_dict``, or ``get_translated_payload`` when the tree has a
translator), for the global scope and every guild the tree places commands
in (``@app_commands.guilds``, ``tree.add_command(..., guild=)``). Each
command becomes a manifest entry written as :mod:`cmdsync.state.as_manifest`
writes live commands (enum names, Discord's defaults left out), addressed at
the handler's file and line (the callback's code object), so every rule,
plan and apply treat it like YAML.

discord.py is an optional extra (``pip install 'cmdsync[discord.py]'``),
imported only when such a source is used.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cmdsync.errors import UsageError
from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
from cmdsync.manifest.document import Document
from cmdsync.manifest.files import CODE_PREFIX as PREFIX
from cmdsync.model import GLOBAL
from cmdsync.state.as_manifest import to_command


@dataclass(frozen=True)
class CodeCommand:
    """One command a tree would sync: its scope, discord.py's payload, its handler's place."""

    scope: str
    payload: dict[str, Any]
    file: str
    line: int
    command: Any  # the discord.py command object, for callers that inspect handlers


_TREES: dict[str, Any] = {}  # trees handed to cmdsync.sync as objects, by reference


def reference_to(tree: Any) -> str:
    """A ``discord.py:`` reference for a tree object given in-process (:func:`cmdsync.sync`)."""
    reference = f"{PREFIX}<tree {id(tree):#x}>"
    _TREES[reference] = tree
    return reference


def load_tree(reference: str) -> Any:
    """The ``CommandTree`` a ``discord.py:MODULE:ATTR`` reference names.

    Raises :class:`~cmdsync.errors.UsageError` naming the module when it
    cannot be imported, lacks the attribute, or is not a tree, and when
    discord.py is not installed.
    """
    if reference in _TREES:
        return _TREES[reference]
    spec = reference[len(PREFIX):]
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise UsageError(f"{reference!r}: write discord.py:MODULE:ATTR, such as "
                         "discord.py:bot:tree")
    try:
        from discord import app_commands
    except ImportError as exc:
        raise UsageError(f"{reference}: discord.py is not installed: pip install "
                         "'cmdsync[discord.py]'") from exc
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise UsageError(f"{reference}: cannot import module {module_name!r}: "
                         f"{type(exc).__name__}: {exc}") from exc
    found = getattr(module, attribute, None)
    if found is None:
        raise UsageError(f"{reference}: module {module_name!r} has no attribute "
                         f"{attribute!r}")
    if callable(found) and not isinstance(found, app_commands.CommandTree) \
            and not hasattr(found, "tree"):
        if not _is_factory(found, module_name):
            raise UsageError(f"{reference}: {attribute!r} is {type(found).__name__}, not a "
                             "discord.py CommandTree, a Client or Bot with one in .tree, nor a "
                             f"function of module {module_name!r} taking no arguments that "
                             "returns one")
        found = found()
        if inspect.isawaitable(found):  # an async factory (it may await set_translator)
            found = _run(found)
    tree = getattr(found, "tree", found)
    if not isinstance(tree, app_commands.CommandTree):
        raise UsageError(f"{reference}: {attribute!r} is {type(found).__name__}, not a "
                         "discord.py CommandTree (nor a Client or Bot with one in .tree)")
    return tree


def _is_factory(found: Any, module_name: str) -> bool:
    """Whether ``found`` is a factory as documented: a function (async too) written in the
    named module itself, taking no arguments. Nothing else is called: not a builtin
    such as ``os.abort``, a class, or a function imported from elsewhere."""
    if not inspect.isfunction(found) or found.__module__ != module_name:
        return False
    try:
        parameters = inspect.signature(found).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in parameters)


def tree_commands(tree: Any) -> list[CodeCommand]:
    """Every command ``tree.sync()`` would send, global first, then guilds by id."""
    import discord

    guilds = sorted({*tree._guild_commands, *(g for (_, g, _) in tree._context_menus
                                              if g is not None)})

    async def payloads() -> list[CodeCommand]:
        found = []
        for guild in [None, *guilds]:
            where = discord.Object(id=guild) if guild is not None else None
            for command in tree.get_commands(guild=where):
                if tree.translator is not None:
                    payload = await command.get_translated_payload(tree, tree.translator)
                else:
                    payload = command.to_dict(tree)
                file, line = handler_place(command)
                found.append(CodeCommand(GLOBAL if guild is None else str(guild),
                                         dict(payload), file, line, command))
        return found

    found: list[CodeCommand] = _run(payloads())
    return found


def _run(awaitable: Any) -> Any:
    """Await ``awaitable`` from synchronous code, on a loop of our own.

    Called from a running loop (cmdsync.sync in a bot's setup_hook), that
    loop is in a thread, so the caller's is never re-entered.
    """
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, wait()).result()


def handler_place(command: Any) -> tuple[str, int]:
    """The file and line of a command's handler (a group's first subcommand's, or its class)."""
    callback = getattr(command, "callback", None)
    if callback is None:
        children = list(_callbacks(command))
        callback = children[0] if children else None
    code = getattr(callback, "__code__", None)
    if code is not None:
        return os.path.relpath(code.co_filename), code.co_firstlineno
    try:
        return (os.path.relpath(inspect.getsourcefile(type(command)) or "<code>"),
                inspect.getsourcelines(type(command))[1])
    except (OSError, TypeError):
        return "<code>", 1


def _callbacks(group: Any) -> Iterator[Any]:
    for child in getattr(group, "commands", []):
        if getattr(child, "callback", None) is not None:
            yield child.callback
        else:
            yield from _callbacks(child)


def code_documents(reference: str) -> tuple[list[Document], list[Diagnostic]]:
    """The commands of a ``discord.py:`` reference as manifest documents (one per command).

    An unusable reference is a CS001 diagnostic at the reference, as an
    unreadable file is.
    """
    try:
        commands = tree_commands(load_tree(reference))
    except UsageError as exc:
        return [], [Diagnostic("CS001", Severity.ERROR, str(exc), Location(reference))]
    documents = []
    for item in commands:
        body = to_command(item.payload, scope=item.scope)
        data: dict[str, Any] = {"commands": [body]} if item.scope == GLOBAL \
            else {"guilds": {item.scope: {"commands": [body]}}}
        path: tuple[str | int, ...] = ("commands", 0) if item.scope == GLOBAL \
            else ("guilds", item.scope, "commands", 0)
        positions: dict[tuple[str | int, ...], tuple[int, int]] = {
            (): (item.line, 1), path: (item.line, 1)}
        documents.append(Document(file=item.file, kind="yaml", data=data,
                                  positions=positions, key_positions=dict(positions),
                                  source=reference))
    return documents, []

"""What each real command file in the shared corpus should validate to (the corpus tests, and the end-to-end apply of the clean ones).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

Pairs = frozenset[tuple[str, str]]


# Keys a GET returns that Discord ignores on write (CS014), and deprecated ones (CS015).
RESPONSE_ONLY = ("application_id", "version", "guild_id", "name_localized",
                 "description_localized")


DEPRECATED = ("dm_permission", "default_permission")


def at(rule: str, *pointers: str) -> Pairs:
    return frozenset((rule, pointer) for pointer in pointers)


def each(rule: str, template: str, indexes: Iterable[Any]) -> Pairs:
    """``template`` formatted with every index: ``each("CS015", "/{}/dm_permission", range(3))``."""
    return frozenset((rule, template.format(*(i if isinstance(i, tuple) else (i,))))
                     for i in indexes)


@dataclass(frozen=True)
class Verdict:
    why: str
    errors: Pairs = frozenset()
    warnings: Pairs = frozenset()
    may_warn: Pairs = frozenset()

    @property
    def valid(self) -> bool:
        return not self.errors


# An enum written as a name in a raw .json array: Discord wants the integer.
# "STRING" is also outside the schema's enum (CS013); either report is right.
ENUM_NAME = "CS013|CS016"


COMMAND_FILES: dict[str, Verdict] = {
    "Clay990__Luffy-1.1__slash_commands.json": Verdict(
        "25 plain slash commands; lowercase names, descriptions 1-100, required first"),
    "CyberL1__discord-message-bookmarker__commands.json": Verdict(
        "a slash and a message command (no description); contexts [0,1,2]",
        # contexts has PRIVATE_CHANNEL and integration_types is missing: it then follows
        # the app's install settings, which Discord's documentation says cmdsync cannot know.
        may_warn=at("CS307", "/0/contexts/2", "/1/contexts/2")),
    "Deevian__tarkovsky-discord-bot__slash-commands.json": Verdict(
        "one command with five subcommands and a choice list"),
    "Fyko__thoth__commands.lock.json": Verdict(
        "deployed lock file: nine locales, localized names equal to their own default "
        "(allowed: only siblings' names must differ), PRIVATE_CHANNEL with USER_INSTALL"),
    "Gtomika__mod-wvw-bot__live_combined.json": Verdict(
        "valid POST bodies that still carry application_id (response-only) and dm_permission",
        warnings=each("CS014", "/{}/application_id", range(15))
        | each("CS015", "/{}/dm_permission", range(15))),
    "Hashory__discord-grant-role-bot__commands.json": Verdict(
        "one command with six role options, one required first"),
    "Kesigomon__rolepanelv3-doc__commands.json": Verdict(
        "camelCase 'defaultPermission' on the two message commands is not an API key",
        errors=at("CS010", "/7/defaultPermission", "/8/defaultPermission")),
    "Ondrej-Sulc__CereBro__commands.json": Verdict(
        "website dump: every command carries access, group, color and a duplicate "
        "'subcommands' tree, none of them API keys",
        errors=each("CS010", "/{}/{}", [(i, key) for i in range(17)
                                         for key in ("access", "group", "color", "subcommands")])),
    "RankedBedwars__Bot__commands.json": Verdict(
        "option name 'IGN' has upper-case letters",
        errors=at("CS101", "/0/options/0/name")),
    "RiskyMH__RiskyBOT__commands.json": Verdict(
        "valid; every command sets the deprecated dm_permission",
        warnings=each("CS015", "/{}/dm_permission", range(14))),
    "RiskyMH__RiskyBOT__commandsExtra.json": Verdict(
        "valid; dm_permission (null or false) is still the deprecated field",
        warnings=each("CS015", "/{}/dm_permission", range(4))),
    "Ryahn__IsekaiExpress__slashCommands.json": Verdict(
        "50 commands with name and description only; type defaults to CHAT_INPUT"),
    "Tornium__tornium__application_commands_combined.json": Verdict(
        "subcommand groups, autocomplete, integer choices and a user command"),
    "Woodmaninator__AttmayMBBot__commands_combined.json": Verdict(
        "26 simple commands with at most one option each"),
    "abheekda1__awesomescibo__slashCommands.json": Verdict(
        "an option carries 'default' (not an API key) and five option types are the "
        "string 'STRING' instead of 3",
        errors=at("CS010", "/0/options/0/default")
        | each(ENUM_NAME, "/5/options/{}/type", range(5))),
    "astrojarred__dexofriend__commands.json": Verdict(
        "'required' is the integer 1 or 0 instead of a boolean on every option",
        errors=each("CS011", "/{}/options/{}/required", [
            (command, option)
            for command, count in {0: 1, 1: 1, 3: 5, 4: 5, 8: 1, 12: 3, 13: 1, 14: 1, 15: 1,
                                   17: 2, 19: 1, 21: 3}.items()
            for option in range(count)])),
    "benminer__discord-audio-streamer__commands.json": Verdict(
        "31 commands, integer options with min/max values"),
    "cssuwb-community-discord__cssuwb-community-discord-bot__commands.json": Verdict(
        "three commands, one string option with choices"),
    "discord__discord-api-docs__doc_examples.json": Verdict(
        "Discord's own examples: user/message commands without description, one "
        "PRIMARY_ENTRY_POINT with handler, localizations incl. el, permissions \"0\""),
    "drakon64__CerberusBot__commands_old.json": Verdict(
        "choices carry a 'type' key, which choice objects do not have",
        errors=each("CS010", "{}/choices/{}/type", [
            (option, choice)
            for option, count in {"/0/options/0": 2, "/0/options/2": 4,
                                  "/2/options/0/options/0": 12,
                                  "/2/options/1/options/0": 4}.items()
            for choice in range(count)])),
    "drakon64__CerberusBot__scripts_commands.json": Verdict(
        "valid localized commands, choices and user commands; four set dm_permission",
        warnings=each("CS015", "/{}/dm_permission", range(1, 5))),
    "jstmemit__jstmemit-bot__commands.json": Verdict(
        "valid: six locales, generated choices, a message command; four set dm_permission",
        warnings=each("CS015", "/{}/dm_permission", range(4))),
    "lumap__decbot__slash_commands.json": Verdict(
        "eight commands, subcommands and choices"),
    "sussycatgirl__prysm__slash_commands.json": Verdict(
        "eleven commands, string choices"),
    "tuna2134__globalchat__commands.locks.json": Verdict(
        "valid, but each command carries the response-only 'version'; empty choices with "
        "autocomplete false are fine",
        warnings=each("CS014", "/{}/version", range(4))),
}

"""The edges of some rules that the case files do not reach: where a duplicate's first
declaration is (``related``), a command without a name, every command of a file checked
after one that passes, how many bad permission bits a message shows, and how a command's
size is counted (Discord's "Application Commands" documentation)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from cmdsync.model import ALL_PERMISSION_BITS, Permission
from cmdsync.validate import validate_paths
from cmdsync.validate.rules import command_too_large

Found = list[tuple[int, int, str, str, list[tuple[int, int]]]]


def found(tmp_path: Path, text: str, rule: str) -> Found:
    """``(line, column, rule, message, related (line, column)s)`` of ``rule``'s findings."""
    path = tmp_path / "bot.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    result = validate_paths([str(path)], env={})
    return [(d.location.line, d.location.column, d.rule, d.message,
             [(r.line, r.column) for r in d.related])
            for d in sorted(result.diagnostics, key=lambda d: d.sort_key()) if d.rule == rule]


def test_a_duplicate_command_points_at_its_first_declaration(tmp_path: Path) -> None:
    assert found(tmp_path, """\
        commands:
          - {type: primary_entry_point, name: launch, handler: discord_launch_activity}
          - {name: ping, description: A}
          - {name: pong, description: B}
          - {name: ping, description: C}
        """, "CS303") == [
        (5, 12, "CS303", ("CHAT_INPUT command 'ping' is already declared in the global "
         "scope; names are unique per type and scope: rename or remove one"), [(3, 12)])]


def test_a_duplicate_id_points_at_its_first_use_and_names_an_unnamed_command(
        tmp_path: Path) -> None:
    assert found(tmp_path, """\
        commands:
          - {name: ping, description: A, id: "not an id"}
          - {name: ping2, description: B, id: "123456789012345678"}
          - {description: C, id: "123456789012345678"}
        """, "CS503") == [
        (4, 26, "CS503", ("command '(unnamed)' in the global scope has the id "
         "'123456789012345678' of command 'ping2' in the global scope; one id names one live "
         "command: correct it, or remove it from one of them"), [(3, 39)])]


def test_unassigned_permission_bits_show_five_then_an_ellipsis(tmp_path: Path) -> None:
    spare = [bit for bit in range(64) if not ALL_PERMISSION_BITS >> bit & 1]
    assert len(spare) >= 7

    def bits(count: int) -> str:
        value = sum(1 << bit for bit in spare[:count]) | 1 << Permission.MANAGE_GUILD
        return str(value)

    text = "commands:\n" + "".join(
        f"  - {{name: c{count}, description: d, default_member_permissions: '{bits(count)}'}}\n"
        for count in (1, 2, 5, 6))
    messages = [f[3] for f in found(tmp_path, text, "CS308")]
    shown = ", ".join(map(str, spare[:5]))
    assert messages == [
        (f"default_member_permissions '{bits(1)}' sets bit {spare[0]}, which is not a "
        "Discord permission: use '32'"),
        (f"default_member_permissions '{bits(2)}' sets bits {spare[0]}, {spare[1]}, which are "
        "not Discord permissions: use '32'"),
        (f"default_member_permissions '{bits(5)}' sets bits {shown}, which are not Discord "
        "permissions: use '32'"),
        (f"default_member_permissions '{bits(6)}' sets bits {shown}, ..., which are not "
        "Discord permissions: use '32'")]


def test_a_command_with_permissions_as_true_is_left_to_the_schema_and_the_next_checked(
        tmp_path: Path) -> None:
    text = f"""\
        commands:
          - {{name: a, description: d, default_member_permissions: true}}
          - {{name: b, description: d, default_member_permissions: '{1 << 62}'}}
        """
    assert [(f[0], f[2]) for f in found(tmp_path, text, "CS308")] == [(3, "CS308")]


def test_a_choice_value_counts_by_its_text_and_a_boolean_counts_nothing() -> None:
    assert command_too_large.value_size("abc") == 3
    assert command_too_large.value_size(1000) == 4
    assert command_too_large.value_size(2.5) == 3
    assert command_too_large.value_size(True) == 0
    assert command_too_large.value_size(None) == 0
    assert command_too_large.field_size({"name": 5}, "name") == 0  # not text: nothing
    assert command_too_large.field_size({}, "description") == 0


def _big(name: str, description: str = "d") -> str:
    """A command whose second option carries 25 choices of 100 + 100 characters (5000)
    and whose first option is small: 8000 is passed by the other fields."""
    choice = "{name: " + "n" * 100 + ", value: " + "v" * 100 + "}"
    return textwrap.dedent(f"""\
          - name: {name}
            description: {description}
            options:
              - {{type: string, name: small, description: "{'s' * 100}"}}
              - type: string
                name: big
                description: "{'b' * 100}"
                choices: [{", ".join([choice] * 25)}]
              - type: string
                name: other
                description: "{'o' * 100}"
                choices: [{", ".join([choice.replace("n" * 100, "m" * 100)] * 15)}]
        """)


def test_a_command_over_8000_names_its_largest_option_and_every_command_is_checked(
        tmp_path: Path) -> None:
    small = "  - {name: fine, description: d}\n"
    text = "commands:\n" + small + textwrap.indent(_big("huge"), "  ") \
        + textwrap.indent(_big("huger", "d" * 50), "  ")
    size = len("huge") + 1 + 5 + 100 + 3 + 100 + 25 * 200 + 5 + 100 + 15 * 200
    assert [f[3] for f in found(tmp_path, text, "CS301")] == [
        (f"command 'huge' is {size} characters in size; Discord allows at most 8000 (names, "
        "descriptions and choices, counting the longest localization of each): shorten it by "
        f"{size - 8000} (option 'big' accounts for {3 + 100 + 25 * 200})"),
        (f"command 'huger' is {size + 1 + 49} characters in size; Discord allows at most 8000 "
        "(names, descriptions and choices, counting the longest localization of each): "
        f"shorten it by {size + 50 - 8000} (option 'big' accounts for {3 + 100 + 25 * 200})")]


def test_an_unnamed_command_over_8000_is_named_as_unnamed(tmp_path: Path) -> None:
    text = "commands:\n" + textwrap.indent(_big("x"), "  ").replace("  - name: x\n    ", "  - ")
    (finding,) = found(tmp_path, text, "CS301")
    assert finding[3].startswith("command '(unnamed)' is ")


def test_a_subcommands_options_count_toward_their_top_level_option(tmp_path: Path) -> None:
    choice = "{name: " + "n" * 100 + ", value: " + "v" * 100 + "}"
    text = f"""\
        commands:
          - name: deep
            description: d
            options:
              - {{type: sub_command, name: one, description: d, options: [{{type: string,
                  name: x, description: d, choices: [{", ".join([choice] * 25)}]}}]}}
              - {{type: sub_command, name: two, description: d, options: [{{type: string,
                  name: y, description: d, choices: [{", ".join([choice] * 25)}]}}]}}
        """
    (finding,) = found(tmp_path, text, "CS301")
    assert finding[3].endswith(f"(option 'one' accounts for {3 + 1 + 1 + 1 + 25 * 200})")


def test_unnamed_commands_are_left_to_the_missing_name_rule(tmp_path: Path) -> None:
    assert found(tmp_path, """\
        commands:
          - {description: A}
          - {description: B}
        """, "CS303") == []


def test_a_duplicate_option_points_at_the_first_and_odd_items_are_skipped(
        tmp_path: Path) -> None:
    assert found(tmp_path, """\
        commands:
          - name: give
            description: d
            options:
              - just a string
              - {type: string, description: no name}
              - {type: string, name: item, description: a}
              - {type: string, name: item, description: b}
        """, "CS203") == [
        (8, 30, "CS203", ("option name 'item' is already taken in command 'give': names "
                          "must be unique among siblings; rename this one"), [(7, 30)])]


def test_entry_points_unnamed_or_second_are_named_and_point_at_the_first(
        tmp_path: Path) -> None:
    assert found(tmp_path, """\
        commands:
          - {type: 9, name: odd}
          - {description: d, handler: app_handler}
          - {type: primary_entry_point, handler: app_handler}
          - {type: primary_entry_point, name: two, handler: app_handler}
        guilds:
          "222222222222222222":
            commands:
              - {type: primary_entry_point, handler: app_handler}
        """, "CS304") == [
        (3, 22, "CS304", ("'handler' on CHAT_INPUT command '(unnamed)'; only "
                          "PRIMARY_ENTRY_POINT commands have a handler: remove it"), []),
        (5, 12, "CS304", ("entry point 'two' is a second PRIMARY_ENTRY_POINT command; an "
                          "application has at most one (the first is '(unnamed)'): remove "
                          "one"), [(4, 12)]),
        (9, 16, "CS304", ("entry point '(unnamed)' is declared in guild 222222222222222222; "
                          "PRIMARY_ENTRY_POINT commands are global only: move it to the "
                          "global commands"), [])]


def test_locale_suggestions_fold_underscores_and_take_the_language_before_the_first_dash(
        ) -> None:
    from cmdsync.validate.rules.locale import message, suggestions

    assert suggestions("en_us") == ["en-US"]
    assert suggestions("es-mx-x") == ["es-419", "es-ES"]
    assert suggestions("enGS") == []  # en-US is close, but not close enough to guess
    assert message("enGS")[0].startswith("'enGS' is not a Discord locale: use one of ")
    assert message("en_us") == (
        "'en_us' is not a Discord locale: write 'en-US' (locale codes are case-sensitive)",
        None)


def test_a_locale_discord_may_not_take_is_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text("commands:\n  - {name: ping, description: d, name_localizations: "
                    "{ar: بنج}}\n", encoding="utf-8")
    (diagnostic,) = [d for d in validate_paths([str(path)], env={}).diagnostics
                     if d.rule == "CS105"]
    assert (diagnostic.severity.value, diagnostic.message) == (
        "warning", ("locale 'ar' is in Discord's OpenAPI but not in its documented locales: "
        "Discord may reject it; remove it if a sync fails"))


def test_localized_option_names_point_at_what_they_collide_with(tmp_path: Path) -> None:
    assert found(tmp_path, """\
        commands:
          - name: give
            description: d
            options:
              - odd item
              - {type: string, name: item, description: a, name_localizations: {fr: objet}}
              - {type: string, name: count, description: b, name_localizations: {fr: objet}}
              - {type: string, name: gift, description: c, name_localizations: {fr: item}}
        """, "CS204") == [
        (7, 78, "CS204", ("localized option name (fr) 'objet' is also the fr name of option "
                          "'item' in command 'give': localized names must be distinct per "
                          "locale; choose another"), [(6, 77)]),
        (8, 77, "CS204", ("localized option name (fr) 'item' is the name of option 'item' in "
                          "command 'give': choose another fr name"), [(6, 30)])]


def test_every_guild_command_is_checked_for_bot_dm_and_an_unnamed_one_is_named(
        tmp_path: Path) -> None:
    assert found(tmp_path, """\
        commands:
          - {name: ping, description: d, contexts: [bot_dm]}
        guilds:
          "222222222222222222":
            commands:
              - {description: d, contexts: [guild, bot_dm]}
        """, "CS306") == [
        (6, 44, "CS306", ("guild command '(unnamed)' lists BOT_DM in contexts; guild commands "
                          "are never offered in DMs with the bot: remove bot_dm, or make the "
                          "command global"), [])]


def test_too_many_subcommands_are_told_to_go_into_groups(tmp_path: Path) -> None:
    subs = "".join(f"      - {{type: sub_command, name: s{i}, description: d}}\n"
                   for i in range(26))
    text = f"commands:\n  - name: big\n    description: d\n    options:\n{subs}"
    assert [f[3] for f in found(tmp_path, text, "CS201")] == [
        ("command 'big' has 26 options; Discord allows at most 25: remove 1 or gather some "
        "into subcommand groups")]

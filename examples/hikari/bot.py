"""A hikari RESTBot (HTTP interactions) to try with `cmdsync invoke` against the emulator.

In one terminal, `cmdsync emulator` (it prints the bot token and the public key);
in another (as docs/testing/invoke.md gives it):

    export CMDSYNC_API_URL=http://127.0.0.1:8787/api/v10 DISCORD_BOT_TOKEN=emulator-bot-token DISCORD_APPLICATION_ID=111111111111111111
    cmdsync apply --auto-approve examples/hikari/commands.yaml > /dev/null
    DISCORD_PUBLIC_KEY=cee21bdaa4cc4d64a13b77459e5816ae5d4143290aeb5512a3901dbb4da11d73 python examples/hikari/bot.py &
    cmdsync invoke --endpoint http://127.0.0.1:8000/ --guild 222222222222222222 '/ping'

The bot reads DISCORD_BOT_TOKEN and DISCORD_PUBLIC_KEY (the application's
verify_key, which `cmdsync emulator` prints), both required (without one it
exits 2 naming it), DISCORD_API_URL (its REST base: the emulator's; default
CMDSYNC_API_URL, else http://127.0.0.1:8787/api/v10) and PORT (default 8000).
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import hikari

ITEMS = ("apple", "apricot", "banana", "cherry")


async def on_command(interaction: hikari.CommandInteraction) -> AsyncIterator[Any]:
    options = {o.name: o for o in interaction.options or []}
    if interaction.command_name == "ping":
        yield interaction.build_response().set_content("pong")
    elif interaction.command_name == "shop":
        buy = {o.name: o.value for o in options["buy"].options or []}
        yield interaction.build_response().set_content(
            f"You bought {buy.get('amount', 1)} x {buy['item']}.")
    elif interaction.command_name == "report":
        yield interaction.build_deferred_response()  # answer within 3 s, work afterwards
        await interaction.edit_initial_response("Report ready: 3 new members.")
        await interaction.execute("Details were sent to the moderators.")
    elif interaction.command_name in ("card", "Member card"):  # a slash and a user command
        member = options["member"].value if "member" in options else interaction.target_id
        yield interaction.build_response().set_content(f"Here is <@{member}>'s card.") \
            .add_embed(member_card(interaction, member))
        await interaction.execute("A note for you alone: ||cards are not saved||.",
                                  flags=hikari.MessageFlag.EPHEMERAL)
    elif interaction.command_name == "ban":
        user = options["user"].value
        reason = options["reason"].value if "reason" in options else "no reason"
        yield interaction.build_response().set_content(f"Banned <@{user}> ({reason}).")
    else:
        yield interaction.build_response().set_content(
            f"No handler for /{interaction.command_name} yet.")


def member_card(interaction: hikari.CommandInteraction, member_id: Any) -> hikari.Embed:
    """An embed with a colour and fields: the member's roles (from the interaction's
    resolved data) and the channel the command was run in."""
    resolved = interaction.resolved
    member = resolved.members.get(member_id) if resolved else None
    roles = [r for r in (member.role_ids if member else []) if r != interaction.guild_id]
    return (hikari.Embed(title="Member card", colour=0x5865F2,
                         description=f"**<@{member_id}>**, asked by <@{interaction.user.id}>.")
            .add_field("Roles", " ".join(f"<@&{r}>" for r in roles) or "none", inline=True)
            .add_field("Channel", f"<#{interaction.channel_id}>", inline=True)
            .set_footer("cmdsync's hikari example"))


def focused(options: Any) -> Any:
    """The option being typed, in the subcommand that holds it."""
    for option in options or []:
        found = option if option.is_focused else focused(option.options)
        if found is not None:
            return found
    return None


async def on_autocomplete(interaction: hikari.AutocompleteInteraction) -> Any:
    typed = str(focused(interaction.options).value)
    matches = [item for item in ITEMS if item.startswith(typed.lower())]
    return interaction.build_response(
        [hikari.impl.AutocompleteChoiceBuilder(name=item.title(), value=item)
         for item in matches])


def build_bot(token: str, public_key: str, rest_url: str) -> hikari.RESTBot:
    """The bot, its listeners set; start it with ``await bot.start(port=...)``."""
    bot = hikari.RESTBot(token, "Bot", public_key=public_key, rest_url=rest_url,
                         logs="WARNING", banner=None)
    bot.set_listener(hikari.CommandInteraction, on_command)
    bot.set_listener(hikari.AutocompleteInteraction, on_autocomplete)
    return bot


MISSING = {
    "DISCORD_BOT_TOKEN": "the bot token `cmdsync emulator` prints (emulator-bot-token)",
    "DISCORD_PUBLIC_KEY": "the public key (verify_key) `cmdsync emulator` prints",
}


def required(name: str) -> str:
    """The environment variable ``name``; exit 2 with one line naming it when unset."""
    value = os.environ.get(name, "").strip()
    if not value:
        print(f"examples/hikari/bot.py: {name} is not set: set it to {MISSING[name]}",
              file=sys.stderr)
        raise SystemExit(2)
    return value


if __name__ == "__main__":
    token, public_key = required("DISCORD_BOT_TOKEN"), required("DISCORD_PUBLIC_KEY")
    build_bot(token, public_key, os.environ.get("DISCORD_API_URL") or os.environ.get(
                  "CMDSYNC_API_URL", "http://127.0.0.1:8787/api/v10"),
              ).run(port=int(os.environ.get("PORT", "8000")), check_for_updates=False)

"""bot.py's buttons, select and modal, clicked, chosen and submitted as a user would,
against cmdsync's Discord emulator (the discord_emulator fixture). Needs cmdsync,
discord.py and pytest-asyncio: `pytest`."""

import pytest
from bot import make_bot

from cmdsync.testing import InvocationFailed

pytestmark = pytest.mark.asyncio
OWNER = 333333333333333333  # the emulator's default seed: the user who runs the commands


def buttons(result):
    """{label: disabled} of the buttons of the message a result shows."""
    return {button["label"]: button.get("disabled", False)
            for row in result.components for button in row["components"]}


async def test_reset_asks_first(discord_emulator):
    bot = make_bot()
    bot.colours.update({OWNER: "red", 333333333333333334: "blue"})
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        asked = await discord_emulator.invoke("/reset")
        cancelled = await discord_emulator.click(asked, label="Cancel")
        with pytest.raises(InvocationFailed, match="it has no buttons"):  # the dialog is over
            await discord_emulator.click(cancelled, label="Confirm")
        assert len(bot.colours) == 2
        asked_again = await discord_emulator.invoke("/reset")
        confirmed = await discord_emulator.click(asked_again, label="Confirm")
    assert asked.content == "Forget 2 saved colours?"
    assert buttons(asked) == {"Confirm": False, "Cancel": False}
    assert cancelled.response_type == "UPDATE_MESSAGE"
    assert (cancelled.content, cancelled.components) == ("Cancelled: nothing was reset.", [])
    assert (confirmed.content, confirmed.components) == ("Done: 2 saved colours forgotten.", [])
    assert bot.colours == {}


async def test_pages_turn_both_ways(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        first = await discord_emulator.invoke("/pages")
        with pytest.raises(InvocationFailed, match="button 'Previous' is disabled"):
            await discord_emulator.click(first, label="Previous")
        second = await discord_emulator.click(first, label="Next")
        back = await discord_emulator.click(second, label="Previous")
    assert first.content == "Page 1 of 3: Be kind to one another."
    assert buttons(first) == {"Previous": True, "Next": False}
    assert second.content == "Page 2 of 3: No spam, no self-promotion."
    assert buttons(second) == {"Previous": False, "Next": False}
    assert back.content == first.content and buttons(back) == buttons(first)
    assert back.message["id"] == first.message["id"]  # one message, edited in place


async def test_colour_is_chosen_in_a_select(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        menu = await discord_emulator.invoke("/colour")
        with pytest.raises(InvocationFailed, match="'purple' is not an option"):
            await discord_emulator.select(menu, ["purple"], custom_id="colour")
        chosen = await discord_emulator.select(menu, ["Blue"], custom_id="colour")
    assert menu.ephemeral
    assert chosen.content == "Your colour is now Blue."
    assert bot.colours == {OWNER: "blue"}


async def test_feedback_form(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        form = await discord_emulator.invoke("/feedback")
        with pytest.raises(InvocationFailed, match="text input 'subject' is required"):
            await discord_emulator.submit_modal(form, {"details": "No subject"})
        sent = await discord_emulator.submit_modal(form, {"subject": "The rules"})
    assert form.response_type == "MODAL" and form.modal["title"] == "Feedback"
    assert sent.content == "Thanks for your feedback on 'The rules'!"
    assert sent.ephemeral
    assert bot.feedback == [("The rules", "")]  # the details are optional

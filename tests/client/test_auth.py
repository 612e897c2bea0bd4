"""Credentials from the environment, flags and token files."""

from __future__ import annotations

from pathlib import Path

import pytest

from cmdsync.client.auth import Auth, ClientCredentials, Token, auth_from_env
from cmdsync.errors import CmdsyncError, UsageError


def test_bot_token_from_env() -> None:
    auth = auth_from_env({"DISCORD_BOT_TOKEN": " abc \n"})
    assert auth == Auth(Token("Bot", "abc", "DISCORD_BOT_TOKEN"))
    assert auth.commands.header() == "Bot abc"  # type: ignore[union-attr]


def test_token_file_flag_wins_and_strips_scheme(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("Bot from-file\n", encoding="utf-8")
    auth = auth_from_env({"DISCORD_BOT_TOKEN": "env"}, token_file=str(path))
    assert auth.commands == Token("Bot", "from-file", str(path))


def test_file_variables(tmp_path: Path) -> None:
    bot, bearer = tmp_path / "bot", tmp_path / "bearer"
    bot.write_text("b1", encoding="utf-8")
    bearer.write_text("Bearer u1", encoding="utf-8")
    auth = auth_from_env({"DISCORD_BOT_TOKEN_FILE": str(bot),
                          "DISCORD_BEARER_TOKEN_FILE": str(bearer)})
    assert auth == Auth(Token("Bot", "b1", str(bot)), Token("Bearer", "u1", str(bearer)))


def test_client_credentials(tmp_path: Path) -> None:
    auth = auth_from_env({"DISCORD_CLIENT_ID": "111", "DISCORD_CLIENT_SECRET": "s3",
                          "DISCORD_BEARER_TOKEN": "u2"})
    assert auth == Auth(ClientCredentials("111", "s3"), Token("Bearer", "u2",
                                                              "DISCORD_BEARER_TOKEN"))
    secret = tmp_path / "secret"
    secret.write_text("s4\n", encoding="utf-8")
    assert auth_from_env({"DISCORD_CLIENT_ID": "111"}, client_secret_file=str(secret)) == Auth(
        ClientCredentials("111", "s4"))
    assert ClientCredentials("111", "s3").basic() == "Basic MTExOnMz"


def test_bot_token_wins_over_client_credentials() -> None:
    auth = auth_from_env({"DISCORD_BOT_TOKEN": "b", "DISCORD_CLIENT_ID": "1",
                          "DISCORD_CLIENT_SECRET": "s"})
    assert auth.commands == Token("Bot", "b", "DISCORD_BOT_TOKEN")


def test_nothing_set() -> None:
    with pytest.raises(CmdsyncError) as caught:
        auth_from_env({"DISCORD_BEARER_TOKEN": "u"})
    assert str(caught.value) == (
        "no credentials: set DISCORD_BOT_TOKEN (or pass --token-file), or DISCORD_CLIENT_ID "
        "and DISCORD_CLIENT_SECRET; or use --local")


def test_half_of_client_credentials() -> None:
    with pytest.raises(CmdsyncError) as caught:
        auth_from_env({"DISCORD_CLIENT_ID": "1"})
    assert str(caught.value) == ("client credentials need both DISCORD_CLIENT_ID and "
                                 "DISCORD_CLIENT_SECRET: DISCORD_CLIENT_SECRET is not set")


def test_bad_token_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        auth_from_env({}, token_file=str(empty))
    assert str(caught.value) == f"the bot token file {empty} is empty"
    with pytest.raises(UsageError) as caught:
        auth_from_env({}, token_file=str(tmp_path / "missing"))
    assert str(caught.value) == (f"cannot read the bot token file {tmp_path / 'missing'}: "
                                 "No such file or directory")


def test_reprs_hide_secrets() -> None:
    auth = Auth(ClientCredentials("111", "hidden-secret"), Token("Bearer", "hidden-bearer", "x"))
    assert repr(auth) == ("Auth(commands=ClientCredentials(client_id='111'), "
                          "permissions=Token(scheme='Bearer', source='x'))")
    assert str(Token("Bot", "hidden", "DISCORD_BOT_TOKEN")) == (
        "Bot token from DISCORD_BOT_TOKEN")

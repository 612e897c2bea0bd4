"""`cmdsync invoke --locale`: the names a user's client shows in that locale are typed,
the interaction carries the default names, and a name of another locale is refused with
that locale named. The hikari example's manifest (fr names) applied with --local; no bot
answers, so the interaction the emulator built is read from its state."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import clean_environment, run

EXAMPLE = Path(__file__).parents[2] / "examples" / "hikari" / "commands.yaml"
GUILD = "222222222222222222"


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Any:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "apply", "--local", "--auto-approve", str(EXAMPLE))
    assert code == 0, out + err
    return lambda *args: run(capsys, "invoke", "--local", "--guild", GUILD, *args)


def last_interaction() -> dict[str, Any]:
    with sqlite3.connect(".cmdsync/local.sqlite") as db:
        row = db.execute("SELECT payload FROM interactions ORDER BY created_at DESC, id DESC "
                         "LIMIT 1").fetchone()
    return dict(json.loads(row[0]))


def test_the_french_names_are_typed_and_the_default_ones_sent(cli: Any) -> None:
    code, out, err = cli("--locale", "fr", "/boutique acheter item:apple")
    # checked and built; then not delivered: no bot serves this application here
    assert (code, out) == (1, "") and "no interactions endpoint URL" in err, err
    payload = last_interaction()
    assert payload["locale"] == "fr"
    assert (payload["data"]["name"], payload["data"]["options"]) == ("shop", [
        {"name": "buy", "type": 1, "options": [{"name": "item", "type": 3,
                                                "value": "apple"}]}])


@pytest.mark.parametrize(("args", "reason"), [
    (["/boutique acheter item:apple"],
     ("Refused: application 111111111111111111 has no CHAT_INPUT command named 'boutique' in "
     f"guild {GUILD} or globally: 'boutique' is the fr name of /shop: add --locale fr\n")),
    (["/shop acheter item:apple"],
     ("Refused: /shop has no subcommand 'acheter': choose buy ('acheter' is the fr name of "
     "the subcommand 'buy': add --locale fr)\n")),
])
def test_a_name_of_another_locale_names_it(cli: Any, args: list[str], reason: str) -> None:
    assert cli(*args) == (1, "", reason)

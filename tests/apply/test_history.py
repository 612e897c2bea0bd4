"""The apply history's replay check (apply.history): the reasons and a headline worded
as they are."""

from __future__ import annotations

from cmdsync.apply.history import Applied, replay_heading, replay_reasons

GUILD = "222222222222222222"
PLANNED = {"global": 1, GUILD: 1}


def test_a_plan_applied_already_is_called_so_in_the_headline() -> None:
    applied = {"global": Applied(2, "d1", "T1"), GUILD: Applied(2, "d1", "T1")}
    assert replay_reasons(applied, PLANNED, "d1", ["global", GUILD]) == [
        "global: this plan was already applied there (T1)",
        f"guild {GUILD}: this plan was already applied there (T1)"]
    assert replay_heading("plan.json", applied, PLANNED, "d1", ["global", GUILD]) == (
        "the saved plan plan.json was already applied to the scopes it changes "
        "(.cmdsync/applied.json); nothing was changed. Plan again (`cmdsync plan --out "
        "FILE`) for new changes, or pass --force to apply it again (live state is then read "
        "and backed up):")


def test_a_plan_made_before_another_apply_is_called_older() -> None:
    applied = {"global": Applied(2, "other", "T2")}
    assert replay_heading("plan.json", applied, PLANNED, "d1", ["global"]).startswith(
        "the saved plan plan.json was made before the last apply to the scopes it changes "
        "(.cmdsync/applied.json): applying it would write its older state over what was "
        "applied since; nothing was changed.")


def test_both_reasons_are_named_in_the_headline() -> None:
    applied = {"global": Applied(2, "d1", "T1"), GUILD: Applied(3, "other", "T2")}
    assert replay_reasons(applied, PLANNED, "d1", ["global", GUILD]) == [
        "global: this plan was already applied there (T1)",
        (f"guild {GUILD}: applied again since the plan was made (last at T2): the plan "
         "would write older state over it")]
    assert replay_heading("plan.json", applied, PLANNED, "d1", ["global", GUILD]).startswith(
        "the saved plan plan.json was already applied to some scopes it changes, and the "
        "others were applied again since it was made (.cmdsync/applied.json)")


def test_no_replay_no_headline() -> None:
    applied = {"global": Applied(1, "d1", "T1")}
    assert replay_reasons(applied, PLANNED, "d1", ["global"]) == []
    assert replay_heading("plan.json", applied, PLANNED, "d1", ["global"]) == ""
    assert replay_heading("plan.json", applied, None, "d1", ["global"]) == ""

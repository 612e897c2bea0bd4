"""Apply results as values: the order a scope's changes are reported in (issue 33, item 14)."""

from __future__ import annotations

from cmdsync.apply.result import ChangeKind, ChangeResult, ChangeStatus, in_plan_order
from cmdsync.plan import Action

GUILD = "222222222222222222"


def change(name: str, *, kind: ChangeKind = ChangeKind.COMMAND, type: int | None = 1,
           status: ChangeStatus = ChangeStatus.APPLIED) -> ChangeResult:
    return ChangeResult(GUILD, kind, Action.CREATE, name, type, None, status)


def test_changes_are_in_the_plans_order_whatever_order_they_were_made_in() -> None:
    """Commands by type, then name in natural order; then overwrite sets by key."""
    made = [change("Report", type=3), change("cmd28", status=ChangeStatus.FAILED),
            change("cmd3", kind=ChangeKind.PERMISSIONS, type=None),
            change("cmd3", status=ChangeStatus.NOT_APPLIED), change("Profile", type=2),
            change("*", kind=ChangeKind.PERMISSIONS, type=None), change("cmd10"),
            change("Cmd2"), change("cmd2")]
    assert [(c.kind, c.type, c.name) for c in in_plan_order(made)] == [
        (ChangeKind.COMMAND, 1, "Cmd2"), (ChangeKind.COMMAND, 1, "cmd2"),
        (ChangeKind.COMMAND, 1, "cmd3"), (ChangeKind.COMMAND, 1, "cmd10"),
        (ChangeKind.COMMAND, 1, "cmd28"), (ChangeKind.COMMAND, 2, "Profile"),
        (ChangeKind.COMMAND, 3, "Report"), (ChangeKind.PERMISSIONS, None, "*"),
        (ChangeKind.PERMISSIONS, None, "cmd3")]
    assert in_plan_order([]) == ()

"""The emulator's domain (issue 34): Discord's permission maths, its enums defined once,
typed readers per resource, and a change's gateway event sent only once it commits."""

from __future__ import annotations

from typing import Any

import pytest

from cmdsync.emulator import new_emulator
from cmdsync.emulator.domain import enums, payloads
from cmdsync.emulator.domain.permissions import (
    ALL,
    EVERYONE,
    ChannelOverwrite,
    Permissions,
    base_permissions,
    in_channel,
    outranks,
)
from cmdsync.emulator.gateway import protocol
from cmdsync.emulator.reference.bounds import Limits
from cmdsync.emulator.reference.call import Call
from cmdsync.emulator.resources.members import Members
from cmdsync.emulator.seed import (
    ADMIN_ROLE_ID,
    APPLICATION_ID,
    BOT_TOKEN,
    CHANNEL_ID,
    GUILD_ID,
    MEMBER_ID,
    USER_ID,
)
from cmdsync.model import ALL_PERMISSION_BITS, Permission

GUILD, MOD, HELPER, USER = "100", "101", "102", "200"


def test_the_permission_flags_are_the_manifests_bits() -> None:
    assert {p.name: int(p) for p in Permissions} == {p.name: 1 << p for p in Permission}
    assert int(ALL) == ALL_PERMISSION_BITS
    assert int(EVERYONE) == 2_248_473_465_835_073  # a new guild's @everyone


def test_base_permissions_follow_the_hierarchy() -> None:
    send, kick = int(Permissions.SEND_MESSAGES), int(Permissions.KICK_MEMBERS)
    assert base_permissions(owner=False, everyone=send, roles=[kick]) == send | kick
    assert base_permissions(owner=True, everyone=0, roles=[]) == ALL
    assert base_permissions(owner=False, everyone=0,
                            roles=[int(Permissions.ADMINISTRATOR)]) == ALL
    assert base_permissions(owner=False, everyone=0, roles=[]) == 0


def test_channel_overwrites_apply_in_discords_order() -> None:
    view, send = int(Permissions.VIEW_CHANNEL), int(Permissions.SEND_MESSAGES)
    base = view | send
    overwrites = [ChannelOverwrite(GUILD, 0, allow=0, deny=send),  # @everyone: no sending
                  ChannelOverwrite(MOD, 0, allow=send, deny=0),  # a role gives it back
                  ChannelOverwrite(HELPER, 0, allow=0, deny=view),
                  ChannelOverwrite(USER, 1, allow=0, deny=view)]  # the member's own last
    assert in_channel(base, overwrites[:1], guild_id=GUILD, user_id=USER, roles=[]) == view
    assert in_channel(base, overwrites[:2], guild_id=GUILD, user_id=USER,
                      roles=[MOD]) == base
    # the roles' allows win over the roles' denies, taken together
    assert in_channel(base, overwrites[:3], guild_id=GUILD, user_id=USER,
                      roles=[MOD, HELPER]) == send
    assert in_channel(base, overwrites, guild_id=GUILD, user_id=USER, roles=[MOD]) == send
    admin = int(Permissions.ADMINISTRATOR)
    assert in_channel(admin, overwrites, guild_id=GUILD, user_id=USER, roles=[]) == ALL
    assert ChannelOverwrite.from_payload({"id": MOD, "type": 0, "allow": "2048",
                                          "deny": "0"}) == ChannelOverwrite(MOD, 0, 2048, 0)


@pytest.mark.parametrize(("actor", "target", "allowed"), [
    ((False, 3), (False, 2), True), ((False, 2), (False, 2), False),
    ((False, 1), (False, 2), False), ((True, 0), (False, 9), True),
    ((False, 9), (True, 0), False), ((True, 0), (True, 0), False)])
def test_only_a_higher_role_or_the_owner_outranks(
        actor: tuple[bool, int], target: tuple[bool, int], allowed: bool) -> None:
    assert outranks(actor_owner=actor[0], actor_top=actor[1], target_owner=target[0],
                    target_top=target[1]) is allowed


def test_enums_are_defined_once() -> None:
    assert protocol.Intent is enums.Intent
    assert enums.ALL_INTENTS == sum(1 << i for i in enums.Intent)
    assert int(enums.CallbackType.UPDATE_MESSAGE) == 7
    assert int(enums.InteractionType.MODAL_SUBMIT) == 5
    assert enums.PRIVILEGED[enums.Intent.MESSAGE_CONTENT] == (1 << 18) | (1 << 19)


def test_the_store_reads_each_resource_typed_and_computes_permissions() -> None:
    store = new_emulator().store
    assert store.user(MEMBER_ID) == {"id": MEMBER_ID, "username": "member",
                                     "global_name": None, "guilds": []}
    assert [m["user_id"] for m in store.members(GUILD_ID)] == [USER_ID, MEMBER_ID,
                                                                APPLICATION_ID]
    assert store.find_channel(CHANNEL_ID) == (GUILD_ID, store.channel(GUILD_ID, CHANNEL_ID))
    assert store.find_role(ADMIN_ROLE_ID) is not None
    assert store.applications_in(GUILD_ID) == [APPLICATION_ID]
    guild = store.guild(GUILD_ID)
    assert guild is not None
    member = store.member(GUILD_ID, MEMBER_ID)
    assert member is not None
    assert store.member_permissions(guild, MEMBER_ID, member) == int(EVERYONE)
    assert store.member_permissions(guild, USER_ID, member) == ALL_PERMISSION_BITS  # owner
    assert store.bot_permissions(guild, APPLICATION_ID) == int(EVERYONE)
    assert payloads.person("1", None, None) is None


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, Any, str | None, int | None]] = []

    def dispatch(self, application_id: str, event: str, data: Any, *,
                 guild_id: str | None = None, intent: int | None = None,
                 one: bool = False) -> int:
        self.sent.append((application_id, event, data, guild_id, intent))
        return 1


def test_a_change_sends_its_event_only_once_committed() -> None:
    emulator, events = new_emulator(), Recorder()
    token = emulator.store.token(BOT_TOKEN)
    assert token is not None
    call = Call(emulator.store, token, {"application_id": APPLICATION_ID,
                                        "guild_id": GUILD_ID}, {}, {}, None, 0.0, Limits(),
                gateway=events)
    with pytest.raises(RuntimeError), call.scope() as scope:
        scope.emit("APPLICATION_COMMAND_PERMISSIONS_UPDATE", {"n": 1}, guild_id=GUILD_ID)
        raise RuntimeError("the change fails: rolled back")
    assert events.sent == []
    with call.scope() as scope:
        scope.emit("APPLICATION_COMMAND_PERMISSIONS_UPDATE", {"n": 2}, guild_id=GUILD_ID)
        assert events.sent == []  # not before the commit
    assert events.sent == [(APPLICATION_ID, "APPLICATION_COMMAND_PERMISSIONS_UPDATE",
                            {"n": 2}, GUILD_ID, None)]


def test_removing_a_member_writes_and_sends_guild_member_remove() -> None:
    emulator, events = new_emulator(), Recorder()
    members = Members(emulator.store, events)
    assert members.remove(GUILD_ID, MEMBER_ID) is True
    assert emulator.store.member(GUILD_ID, MEMBER_ID) is None
    assert [(a, e, d["user"]["id"], g, i) for a, e, d, g, i in events.sent] == [
        (APPLICATION_ID, "GUILD_MEMBER_REMOVE", MEMBER_ID, GUILD_ID,
         int(enums.Intent.GUILD_MEMBERS))]
    assert members.remove(GUILD_ID, MEMBER_ID) is False
    assert len(events.sent) == 1


def _admin_invoke(emulator: Any, **body: Any) -> tuple[int, dict[str, Any]]:
    from starlette.testclient import TestClient

    from cmdsync.emulator import create_app

    with TestClient(create_app(emulator), base_url="http://127.0.0.1") as client:
        answer = client.post("/_emulator/interactions",
                             json={"application_id": APPLICATION_ID, **body})
    return answer.status_code, answer.json()


def test_refusals_travel_as_codes_with_their_reason_and_fix() -> None:
    from cmdsync.emulator.interactions.invocation import APPLY_FIRST

    emulator = new_emulator()
    status, unknown = _admin_invoke(emulator, line="/nothing", guild_id=GUILD_ID)
    assert status == 400
    assert (unknown["refusal"], unknown["fix"]) == ("unknown_command", APPLY_FIRST)
    assert unknown["message"] == f"{unknown['reason']}: {APPLY_FIRST}"
    assert unknown["reason"] == (f"application {APPLICATION_ID} has no CHAT_INPUT command "
                                 f"named 'nothing' in guild {GUILD_ID} or globally")
    status, stranger = _admin_invoke(emulator, line="/x", guild_id=GUILD_ID,
                                     user_id="999999999999999999")
    assert (status, stranger["refusal"], stranger["fix"]) == (400, "unknown_user", None)
    status, bad = _admin_invoke(emulator, line="/x", kind="slash")
    assert (status, bad["refusal"]) == (400, "invalid_request")


def test_the_plugin_words_a_refusal_by_its_code_not_its_text() -> None:
    from cmdsync.emulator.interactions.invocation import APPLY_FIRST
    from cmdsync.testing.results import _SYNC, in_a_test

    unknown = {"refusal": "unknown_command", "reason": "no /x", "fix": APPLY_FIRST}
    assert in_a_test(f"no /x: {APPLY_FIRST}", unknown) == f"no /x: {_SYNC}"
    typo = {"refusal": "unknown_command", "reason": "no /x", "fix": "did you mean 'y'?"}
    assert in_a_test("no /x: did you mean 'y'?", typo) == (
        f"no /x: did you mean 'y'? (or {_SYNC})")
    # the same words under another code are left as they are
    other = {"refusal": "invalid_option", "reason": "no /x", "fix": APPLY_FIRST}
    assert in_a_test(f"no /x: {APPLY_FIRST}", other) == f"no /x: {APPLY_FIRST}"

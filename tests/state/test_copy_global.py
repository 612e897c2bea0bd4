"""The desired state with ``copy_global_to`` (issue 33, item 1): the global commands are one
guild's, without the fields Discord applies to global commands only; entry points stay out;
the global scope is not managed; names in both places are found for the caller to report."""

from __future__ import annotations

from pathlib import Path

from cmdsync.state.desired import copy_collisions, desired_state, uncopied_entry_points
from cmdsync.validate import validate_paths

GUILD = "222222222222222222"
MANIFEST = f"""\
application_id: "111111111111111111"
commands:
  - name: ping
    description: Check the bot is alive
    contexts: [guild, bot_dm]
    integration_types: [guild_install]
    dm_permission: false
  - {{type: primary_entry_point, name: launch, handler: discord_launch_activity}}
  - {{type: user, name: Profile}}
guilds:
  "{GUILD}":
    prune: false
    commands:
      - {{name: debug, description: Developer tools}}
      - {{type: user, name: Profile}}
"""


def test_the_copy_is_the_guilds_and_global_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(MANIFEST, encoding="utf-8")
    result = validate_paths([str(path)], env={})
    assert result.manifest is not None
    state = desired_state(result.manifest, copy_global_to=GUILD)
    assert list(state.scopes) == [GUILD] and state.copy_global_to == GUILD
    scope = state.scopes[GUILD]
    assert (scope.manages_commands, scope.prune) == (True, False)  # the guild's own prune
    bodies = {(c.body.get("type", 1), c.body["name"]): dict(c.body) for c in scope.commands}
    assert bodies[(1, "ping")] == {"name": "ping", "description": "Check the bot is alive"}
    assert (4, "launch") not in bodies
    assert [e.name for e in uncopied_entry_points(result.manifest)] == ["launch"]
    (first, second), = copy_collisions(result.manifest, GUILD)
    assert (first.scope, second.scope, second.name) == ("global", GUILD, "Profile")
    assert desired_state(result.manifest).digest != state.digest
    assert set(desired_state(result.manifest).scopes) == {"global", GUILD}

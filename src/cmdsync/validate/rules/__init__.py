"""The registry of validation rules, keyed by stable id.

Each rule lives in its own module (see :mod:`cmdsync.validate.rules.base`);
its docstring is its documentation, rendered by ``cmdsync rules ID`` and
into ``docs/rules.md``. Ids never change meaning; retired ids are not
reused. The registry imports every rule module by name (as yamllint's
``rules/__init__.py`` does), so editors and mypy see each one; helpers shared
by rules are in :mod:`cmdsync.validate.rules.common`.
"""

from __future__ import annotations

import functools
from types import ModuleType

from cmdsync.validate.rules import (
    application_id_mismatch,
    autocomplete,
    chat_input_name,
    choice_count,
    choice_value,
    command_count,
    command_too_large,
    context_menu_name,
    default_member_permissions,
    deprecated_field,
    description_forbidden,
    description_required,
    duplicate_command,
    duplicate_command_id,
    duplicate_key,
    duplicate_option_name,
    entry_point,
    entry_point_without_activity,
    global_only_field,
    guild_bot_dm,
    invalid_value,
    locale,
    localized_option_name,
    missing_key,
    nesting,
    numeric_range,
    option_count,
    overwrite_count,
    overwrite_id,
    overwrite_target,
    private_channel,
    raw_json_enum_name,
    required_on_subcommand,
    required_order,
    resource_limit,
    response_only_key,
    snowflake,
    syntax,
    type_specific_field,
    undefined_variable,
    unknown_key,
    unsupported_integration_type,
    wrong_type,
)
from cmdsync.validate.rules.base import Finding, Rule

__all__ = ["Finding", "Rule", "all_rules", "get_rule"]

# Loader and schema rules document checks done in cmdsync.manifest.loader and
# cmdsync.validate.schema; their modules have no check function.
_MODULES: tuple[ModuleType, ...] = (
    syntax,
    duplicate_key,
    resource_limit,
    undefined_variable,
    unknown_key,
    wrong_type,
    missing_key,
    invalid_value,
    response_only_key,
    deprecated_field,
    raw_json_enum_name,
    chat_input_name,
    context_menu_name,
    description_required,
    description_forbidden,
    locale,
    option_count,
    choice_count,
    duplicate_option_name,
    localized_option_name,
    required_order,
    required_on_subcommand,
    nesting,
    choice_value,
    autocomplete,
    type_specific_field,
    numeric_range,
    command_too_large,
    command_count,
    duplicate_command,
    entry_point,
    global_only_field,
    guild_bot_dm,
    private_channel,
    default_member_permissions,
    overwrite_count,
    overwrite_target,
    overwrite_id,
    snowflake,
    application_id_mismatch,
    duplicate_command_id,
    unsupported_integration_type,
    entry_point_without_activity,
)


@functools.cache
def all_rules() -> tuple[Rule, ...]:
    """Every rule, in id order."""
    return tuple(sorted((Rule.from_module(module) for module in _MODULES),
                        key=lambda rule: rule.id))


def get_rule(rule_id: str) -> Rule | None:
    """The rule with id (``CS101``) or name (``chat-input-name``), else None."""
    wanted = rule_id.strip()
    for rule in all_rules():
        if rule.id.lower() == wanted.lower() or rule.name == wanted.lower():
            return rule
    return None

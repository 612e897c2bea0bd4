"""The rule registry as a listing, one rule's documentation, or docs/rules.md."""

from __future__ import annotations

import re

from cmdsync.validate.rules import Rule, all_rules

# Who checks a rule, as "checked by ..." ends in the listing and in docs/rules.md.
_CHECKED_BY = {"rule": "cmdsync's rules", "schema": "the JSON Schema",
               "loader": "the manifest loader",
               "application": "cmdsync's rules once the application is read: validate "
                              "--online, plan"}
_LITERAL = re.compile(r"``([^`]+)``")


def listing() -> str:
    """One line per rule: id, severity, name and title, aligned."""
    rules = all_rules()
    width = max(len(rule.name) for rule in rules)
    lines = [f"{r.id}  {r.severity.value:<7}  {r.name:<{width}}  {r.title}" for r in rules]
    return "\n".join(lines) + f"\n\n{len(rules)} rules. `cmdsync rules ID` explains one.\n"


def detail(rule: Rule) -> str:
    """A rule's id, name, severity, where it is checked, and its documentation."""
    head = f"{rule.id} {rule.name} ({rule.severity.value}, checked by " \
           f"{_CHECKED_BY[rule.checked_by]})"
    return f"{head}\n{rule.title}\n\n{_doc_text(rule.doc)}\n"


def _doc_text(doc: str) -> str:
    """The docstring for a terminal: reStructuredText's ``code`` as `code`, and
    ``Failing::`` as ``Failing:`` (its indented example follows); examples as written."""
    out = []
    for line in doc.splitlines():
        if line.startswith("    "):
            out.append(line)
            continue
        line = _LITERAL.sub(r"`\1`", line)
        out.append(line.rstrip()[:-1] if line.rstrip().endswith("::") else line)
    return "\n".join(out)


def markdown() -> str:
    """``docs/rules.md``: generated from the registry; a test keeps it in sync."""
    parts = [
        "# cmdsync validation rules",
        "",
        ("Generated from the rule registry by `cmdsync rules --format markdown`; "
        "do not edit by hand."),
        ("Select or skip rules with `cmdsync validate --select ID` / `--ignore ID` "
        "(a prefix such as `CS2` selects a group)."),
        "",
        "| id | name | severity | title |",
        "|---|---|---|---|",
    ]
    rules = all_rules()
    parts += [f"| [{r.id}](#{r.id.lower()}) | {r.name} | {r.severity.value} | {r.title} |"
              for r in rules]
    for rule in rules:
        parts += ["", f"## {rule.id}", "",
                  (f"**{rule.name}** ({rule.severity.value}, checked by "
                  f"{_CHECKED_BY[rule.checked_by]}): {rule.title}."), "",
                  _doc_markdown(rule.doc)]
    return "\n".join(parts).rstrip() + "\n"


def _doc_markdown(doc: str) -> str:
    """Turn the docstring's ``Failing::`` blocks into fenced code blocks."""
    out: list[str] = []
    in_block = False
    for line in doc.splitlines():
        if line.rstrip().endswith("::") and not line.startswith("    "):
            if in_block:
                _close(out)
                if out[-1]:
                    out.append("")
            out.append(line.rstrip()[:-2] + ":")
            out.append("")
            out.append("```yaml")
            in_block = True
            continue
        if in_block and line and not line.startswith("    "):
            _close(out)
            in_block = False
        if in_block and not line.strip() and out[-1] == "```yaml":
            continue  # the blank line after ``Failing::`` opens no line of the example
        out.append(line[4:] if in_block else line)
    if in_block:
        _close(out)
    return "\n".join(out)


def _close(out: list[str]) -> None:
    """End a fenced example: its trailing blank lines stay outside the fence."""
    blanks = 0
    while out and not out[-1].strip():
        out.pop()
        blanks += 1
    out.append("```")
    out.extend([""] * blanks)

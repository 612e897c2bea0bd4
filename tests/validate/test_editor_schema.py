"""The editor schema (`cmdsync schema`) as real editors' tools read it: check-jsonschema
and Red Hat's YAML language server (npm), which must flag what Discord refuses."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import pytest

from cmdsync.validate.editor_schema import SCHEMA_ID, dumps
from tests.support.cli import run
from tests.support.paths import ROOT

YAML_LANGUAGE_SERVER = "yaml-language-server@1.25.0"
BAD = """\
# yaml-language-server: $schema=cmdsync.schema.json
commands:
  - name: Ping
    description: Upper case is refused
  - type: user
    name: Profile
    description: User commands take no description
  - name: many
    description: Too many options
    options:
""" + "".join(f"      - {{type: string, name: o{i}, description: d}}\n" for i in range(26))
GOOD = """\
# yaml-language-server: $schema=cmdsync.schema.json
commands:
  - name: zoë_名前
    description: Unicode letters are fine
  - {type: user, name: Profile}
  - name: ping
    description: Check the bot is alive
    version: "1"
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "cmdsync.schema.json").write_text(dumps(), encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(BAD, encoding="utf-8")
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    return tmp_path


def test_the_shipped_schema_is_what_cmdsync_schema_prints(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "schema")
    assert code == 0 and out == dumps()
    assert (ROOT / "schemas" / "cmdsync.schema.json").read_text(encoding="utf-8") == out
    assert json.loads(out)["$id"] == SCHEMA_ID
    target = tmp_path / "cmdsync.schema.json"
    assert run(capsys, "schema", "--output", str(target))[0] == 0
    code, _, err = run(capsys, "schema", "--output", str(target))
    assert code == 2 and "--force" in err
    assert run(capsys, "schema", "--output", str(target), "--force")[0] == 0


@pytest.mark.slow
def test_check_jsonschema_flags_what_discord_refuses(folder: Path) -> None:
    def check(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "check_jsonschema", *args], cwd=folder,
                              capture_output=True, text=True, timeout=120, check=False)

    assert check("--check-metaschema", "cmdsync.schema.json").returncode == 0
    bad = check("--schemafile", "cmdsync.schema.json", "bad.yaml")
    assert bad.returncode == 1
    assert "$.commands[0].name: 'Ping' does not match" in bad.stdout
    assert "$.commands[1].description: 'User commands take no description' is expected to " \
           "be empty" in bad.stdout
    assert "$.commands[2].options: " in bad.stdout and "is too long" in bad.stdout
    good = check("--schemafile", "cmdsync.schema.json", "good.yaml")
    assert good.returncode == 0, good.stdout


# -- the YAML language server, over its stdio protocol (LSP) -------------------------


def _frames(stream: IO[bytes], inbox: queue.Queue[Any]) -> None:
    """Read Content-Length framed JSON-RPC messages; None at the end."""
    while True:
        length = 0
        while (line := stream.readline()) not in (b"\r\n", b"\n"):
            if not line:
                inbox.put(None)
                return
            name, _, value = line.decode("ascii").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        inbox.put(json.loads(stream.read(length)))


def language_server_diagnostics(server: list[str], document: Path, timeout: float = 60,
                                complete_at: tuple[int, int] | None = None
                                ) -> list[dict[str, Any]]:
    """What the server publishes for ``document`` once opened, as an editor sees it; with
    ``complete_at`` (0-based line and character), the completion items offered there
    instead (what an editor lists as you type a key)."""
    settings = {"validate": True, "schemaStore": {"enable": False},
                "kubernetesCRDStore": {"enable": False}}
    process = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, cwd=document.parent)
    assert process.stdin is not None and process.stdout is not None
    inbox: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=_frames, args=(process.stdout, inbox), daemon=True).start()

    def send(message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert process.stdin is not None
        process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        process.stdin.flush()

    uri = document.resolve().as_uri()
    deadline = time.monotonic() + timeout
    try:
        send({"id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": document.parent.resolve().as_uri(),
            "capabilities": {"workspace": {"configuration": True}}}})
        opened = False
        while time.monotonic() < deadline:
            message = inbox.get(timeout=max(deadline - time.monotonic(), 0.1))
            assert message is not None, "the language server exited"
            if message.get("method") == "workspace/configuration":  # the server asks
                send({"id": message["id"], "result": [
                    settings if item.get("section") == "yaml" else {}
                    for item in message["params"]["items"]]})
            elif "id" in message and "method" in message:
                send({"id": message["id"], "result": None})
            elif message.get("id") == 1 and not opened:
                send({"method": "initialized", "params": {}})
                send({"method": "textDocument/didOpen", "params": {"textDocument": {
                    "uri": uri, "languageId": "yaml", "version": 1,
                    "text": document.read_text(encoding="utf-8")}}})
                opened = True
            elif message.get("method") == "textDocument/publishDiagnostics" \
                    and message["params"]["uri"] == uri:
                if complete_at is None:
                    return list(message["params"]["diagnostics"])  # one publish per open
                line, character = complete_at
                send({"id": 2, "method": "textDocument/completion", "params": {
                    "textDocument": {"uri": uri},
                    "position": {"line": line, "character": character}}})
            elif message.get("id") == 2 and "result" in message:
                result = message["result"] or {}
                return list(result.get("items", result) if isinstance(result, dict)
                            else result)
        raise TimeoutError("the language server published no diagnostics")
    finally:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def yaml_language_server(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the YAML language server comes from npm")
    prefix = tmp_path_factory.mktemp("yaml-language-server")
    subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                    YAML_LANGUAGE_SERVER], check=True, capture_output=True, timeout=300)
    # which: on Windows npm makes yaml-language-server.cmd beside the extensionless script
    server = shutil.which("yaml-language-server", path=str(prefix / "node_modules" / ".bin"))
    assert server is not None, "npm installed no yaml-language-server"
    return [server, "--stdio"]


@pytest.mark.slow
def test_the_yaml_language_server_flags_what_discord_refuses(
        folder: Path, yaml_language_server: list[str]) -> None:
    found = language_server_diagnostics(yaml_language_server, folder / "bad.yaml")
    by_line = {(d["range"]["start"]["line"] + 1, d["message"]) for d in found}
    assert by_line == {
        (3, ("String does not match the pattern of "
            "\"^(?!.*\\p{Lu})[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$\".")),
        (7, "String is longer than the maximum length of 0."),  # a USER command's description
        (11, "Array has too many items. Expected 25 or fewer.")}
    assert language_server_diagnostics(yaml_language_server, folder / "good.yaml") == []


COMPLETE = """\
# yaml-language-server: $schema=cmdsync.schema.json
commands:
  - name: ping
    description: Check the bot is alive
    
"""


@pytest.mark.slow
def test_the_yaml_language_server_offers_no_response_only_key(
        tmp_path: Path, yaml_language_server: list[str]) -> None:
    (tmp_path / "cmdsync.schema.json").write_text(dumps(), encoding="utf-8")
    (tmp_path / "complete.yaml").write_text(COMPLETE, encoding="utf-8")
    items = language_server_diagnostics(yaml_language_server, tmp_path / "complete.yaml",
                                        complete_at=(4, 4))
    offered = {item["label"] for item in items}
    assert {"options", "default_member_permissions", "contexts", "nsfw"} <= offered
    assert not offered & {"version", "application_id", "guild_id", "name_localized",
                          "description_localized", "default_permission"}

"""``GET /_emulator/``: the admin API's index, the address the emulator's banner gives,
listing every admin route (and only those), behind the same host and origin checks."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from cmdsync.emulator import create_app, server
from cmdsync.emulator.admin import DOCS
from tests.support.emulator import emulator

BASE = "http://127.0.0.1:8787"


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(emulator()), base_url=BASE) as test_client:
        yield test_client


def mounted() -> set[tuple[str, str]]:
    """``(method, path)`` of each route the app serves under ``/_emulator``."""
    app = create_app(emulator())
    mount = next(r for r in app.routes if isinstance(r, Mount) and r.path == "/_emulator")
    found = set()
    for route in mount.routes:
        assert isinstance(route, Route)
        found.update((method, "/_emulator" + route.path) for method in route.methods or ()
                     if method != "HEAD")
    return found


def test_the_banners_admin_address_answers_the_index(client: TestClient) -> None:
    banner = server.banner(client.app.state.emulator, BASE)  # type: ignore[attr-defined]
    address = re.findall(r"admin API: (\S+)", banner)
    assert address == [f"{BASE}/_emulator/"]
    answer = client.get(address[0])
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert body["docs"] == DOCS == "https://cmdsync.github.io/cmdsync/emulator/admin/"
    assert body["routes"][:2] == [
        {"method": "GET", "path": "/_emulator/", "description": "this index of the admin routes"},
        {"method": "POST", "path": "/_emulator/reset", "description": (
            "forget every command, overwrite, token and count, clear the request log, "
            "apply the seed again (a seed in the body replaces it first); 204")}]
    assert all(set(route) == {"method", "path", "description"} and route["description"]
               for route in body["routes"])


def test_the_index_lists_every_admin_route_once(client: TestClient) -> None:
    listed = [(route["method"], route["path"])
              for route in client.get("/_emulator/").json()["routes"]]
    assert len(listed) == len(set(listed))
    assert set(listed) == mounted()


def test_the_index_is_guarded_as_the_rest_of_the_admin_api(client: TestClient) -> None:
    other_host = client.get("/_emulator/", headers={"host": "rebound.example"})
    assert (other_host.status_code, other_host.json()) == (403, {"code": 0, "message": (
        "the admin API answers only requests for localhost, 127.0.0.1, [::1] or the host it "
        "listens on, not 'rebound.example': call it by one of those")})
    other_origin = client.get("/_emulator/", headers={"origin": "http://evil.example"})
    assert (other_origin.status_code, other_origin.json()) == (403, {"code": 0, "message": (
        "the admin API refuses requests from another origin (http://evil.example)")})
    assert client.get("/_emulator/", headers={"origin": BASE}).status_code == 200


def test_the_docs_table_lists_the_index() -> None:
    from tests.support.paths import ROOT

    table = (ROOT / "docs" / "emulator" / "admin.md").read_text(encoding="utf-8")
    assert "| `GET /_emulator/` |" in table

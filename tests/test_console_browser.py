"""The review console in a real browser: headless Chromium (Debian's package) via Playwright,
against the API served by uvicorn on loopback over a real SQLite store.

Chromium is a test dependency like PostgreSQL: scripts/services.sh installs it, and a missing
browser fails this test instead of skipping it.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import Engine

from memwarden.api.app import create_app
from memwarden_shared.config import Settings
from memwarden_shared.state.auth import Scope, create_principal
from tests.test_api import set_policy

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# docs/console.png is refreshed only on request, so a test run never edits tracked files
SCREENSHOT_TO = os.environ.get("MEMWARDEN_CONSOLE_SCREENSHOT")
PNPM = "I prefer pnpm for all my JavaScript projects."
CONVERSATION = [
    f"Thanks, that fixed the build! {PNPM} Can you update the README too?",
    "Quick note before we start. Please always reply in English.",
    "今天的会议很顺利。我更喜欢深色主题。",
    "Remember that the staging database is read-only on Fridays.",
]
HOSTILE = 'I prefer yarn for all my JavaScript projects. <img src=x onerror="document.title=1">'


def _turn(text: str, message_id: str, minute: int) -> dict[str, Any]:
    return {
        "subject_id": "alice",
        "session_id": "s1",
        "message_id": message_id,
        "role": "user",
        "source": "user_message",
        "text": text,
        "created_at": f"2026-05-01T09:{minute:02d}:00Z",
    }


@pytest.fixture
def served(sqlite_engine: Engine) -> Iterator[str]:
    """The API on a free loopback port, in a thread; yields its base URL."""
    app = create_app(sqlite_engine, settings=Settings(broker_url=""))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))  # the OS picks a free port; uvicorn serves on this socket
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


def _chromium_page(playwright: Any) -> Any:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium package "
            "(bash scripts/services.sh does: apt-get install -y chromium)"
        )
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    return browser, browser.new_page(viewport={"width": 1000, "height": 900})


def test_console__a_reviewer_approves_a_candidate_in_the_browser_and_recall_returns_it(
    served: str, sqlite_engine: Engine, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    tenant = "acme"  # a fresh SQLite store per test: fixed names keep the screenshot stable
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[test]'")
    set_policy(sqlite_engine, tenant, "review_all")
    with sqlite_engine.begin() as conn:
        backend = create_principal(conn, "chat-backend", tenant, [Scope.PROPOSE])
        reviewer = create_principal(conn, "alice-owner", tenant, [Scope.REVIEW])
        reader = create_principal(conn, "assistant", tenant, [Scope.READ])
    http = httpx.Client(base_url=served, timeout=30)
    request.addfinalizer(http.close)
    turns = [_turn(text, f"m{i}", i) for i, text in enumerate(CONVERSATION)]
    r = http.post(
        "/v1/turns", headers={"Authorization": f"Bearer {backend}"}, json={"turns": turns}
    )
    assert r.json() == {"stored": 4, "duplicates": 0}

    def recall() -> list[Any]:
        r = http.get("/v1/subjects/alice/recall", headers={"Authorization": f"Bearer {reader}"})
        return [m["value"] for m in r.json()["memories"]]

    assert recall() == []  # review_all: everything waits for the owner

    with sync_playwright() as playwright:
        browser, page = _chromium_page(playwright)
        try:
            page.goto(f"{served}/console")
            page.fill("#api-key", reviewer)
            page.click("#use-key")
            page.wait_for_selector("article.candidate")
            cards = page.locator("article.candidate")
            assert cards.count() == 4
            card = page.locator("article.candidate", has=page.locator("mark", has_text="pnpm"))
            assert card.locator("mark").inner_text() == PNPM  # the sentence, inside its message
            assert "Can you update the README too?" in card.locator("blockquote").inner_text()
            assert card.locator(".value").inner_text() == "pnpm"
            assert page.evaluate("sessionStorage.getItem('memwarden.apiKey')") == reviewer
            shot = Path(SCREENSHOT_TO) if SCREENSHOT_TO else tmp_path / "console.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000  # a rendered page, not a blank one

            card.locator("button.approve").click()
            page.wait_for_selector("article.candidate.approved")
            assert "approved: mem_" in card.locator(".outcome").inner_text()
            assert recall() == ["pnpm"]

            # Text from the conversation is shown as text, never parsed as markup.
            r = http.post(
                "/v1/turns",
                headers={"Authorization": f"Bearer {backend}"},
                json={"turns": [_turn(HOSTILE, "m9", 30)]},
            )
            assert r.json()["stored"] == 1
            page.click("#refresh")
            hostile = page.locator("article.candidate", has=page.locator(".value", has_text="yarn"))
            hostile.wait_for()
            assert (
                '<img src=x onerror="document.title=1">'
                in hostile.locator("blockquote").inner_text()
            )
            assert page.locator("article.candidate img").count() == 0
            assert page.title() != "1"
        finally:
            browser.close()


def test_console__an_approver_approves_an_action_and_sees_the_repair_list(
    served: str, sqlite_engine: Engine, request: pytest.FixtureRequest
) -> None:
    tenant = "acme"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[test]'")
    with sqlite_engine.begin() as conn:
        backend = create_principal(conn, "chat-backend", tenant, [Scope.PROPOSE])
        agent = create_principal(conn, "billing-agent", tenant, [Scope.ACTION_REQUEST])
        approver = create_principal(conn, "finance-lead", tenant, [Scope.ACTION_APPROVE])
        owner = create_principal(conn, "alice-owner", tenant, [Scope.REVIEW, Scope.READ])
    http = httpx.Client(base_url=served, timeout=30)
    request.addfinalizer(http.close)
    decision = "We decided to bill Acme through the Singapore entity."
    r = http.post(
        "/v1/turns",
        headers={"Authorization": f"Bearer {backend}"},
        json={"turns": [_turn(decision, "m1", 0)]},
    )
    assert r.json()["stored"] == 1
    ask = {
        "subject_id": "alice",
        "intent": "payment.create",
        "params": {"amount": "120.00", "payee": "<b>Acme SG</b>"},
        "idempotency_key": "inv-77",
    }
    memories = http.get(
        "/v1/subjects/alice/recall", headers={"Authorization": f"Bearer {owner}"}
    ).json()["memories"]
    ask["uses"] = [memories[0]["memory_id"]]
    asked = http.post("/v1/actions", headers={"Authorization": f"Bearer {agent}"}, json=ask)
    assert asked.json()["decision"] == "NEEDS_APPROVAL", asked.text

    with sync_playwright() as playwright:
        browser, page = _chromium_page(playwright)
        try:
            page.goto(f"{served}/console")
            page.fill("#api-key", approver)
            page.click("#use-key")
            page.wait_for_selector("article.action")
            card = page.locator("article.action")
            assert card.locator(".intent").inner_text() == "payment.create"
            assert "<b>Acme SG</b>" in card.locator(".params").inner_text()  # text, not markup
            card.locator("button.approve-action").click()
            page.wait_for_selector("article.action.approved")
            got = http.get(
                f"/v1/actions/{asked.json()['action_id']}",
                headers={"Authorization": f"Bearer {agent}"},
            ).json()
            assert (got["state"], got["approved_by"]) == ("allowed", "finance-lead")

            # the agent executes it, then the source of what it relied on is retracted
            http.post(
                f"/v1/actions/{got['action_id']}/outcome",
                headers={"Authorization": f"Bearer {agent}"},
                json={"status": "executed", "external_ref": "pay-9"},
            )
            r = http.post("/v1/messages/m1/revoke", headers={"Authorization": f"Bearer {owner}"})
            assert r.status_code == 200, r.text
            page.fill("#repair-message", "m1")
            page.click("#show-repair")
            page.wait_for_selector("#repair-list li.repair-action")
            listed = page.locator("#repair-list").inner_text()
            assert "1 memory versions" in listed
            assert "1 need repair" in listed
            item = page.locator("li.repair-action.needs_repair").inner_text()
            assert "payment.create" in item and "pay-9" in item and "billing-agent" in item
        finally:
            browser.close()

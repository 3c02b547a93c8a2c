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
from sqlalchemy import Engine, update

from memwarden.api.app import create_app
from memwarden.reasons import in_words
from memwarden_shared.config import Settings
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.schema import proposals
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

            # issue 26 item 9: reasons in words (the code as the tooltip), a live count
            assert page.locator("#count").inner_text() == "4 pending"
            reasons = card.locator(".reason")
            assert reasons.count() >= 1
            for index in range(reasons.count()):
                code = reasons.nth(index).get_attribute("data-code") or ""
                assert reasons.nth(index).inner_text() == in_words(code) != code

            card.locator("button.approve").click()
            page.wait_for_selector("article.candidate.approved")
            assert "approved: mem_" in card.locator(".outcome").inner_text()
            assert page.locator("#count").inner_text() == "3 pending"
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


def test_console__a_reviewer_filters_then_bulk_approves_with_one_confirmation(
    served: str, sqlite_engine: Engine, request: pytest.FixtureRequest
) -> None:
    """Filter, select all shown, one confirmation naming the count and the keys; a candidate
    whose stored hash changed after the page loaded is refused on its own card."""
    tenant = "acme"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[test]'")
    set_policy(sqlite_engine, tenant, "review_all")
    with sqlite_engine.begin() as conn:
        backend = create_principal(conn, "chat-backend", tenant, [Scope.PROPOSE])
        reviewer = create_principal(conn, "alice-owner", tenant, [Scope.REVIEW, Scope.READ])
    http = httpx.Client(
        base_url=served, timeout=30, headers={"Authorization": f"Bearer {reviewer}"}
    )
    request.addfinalizer(http.close)
    turns = [_turn(text, f"m{i}", i) for i, text in enumerate(CONVERSATION)]
    r = http.post(
        "/v1/turns", headers={"Authorization": f"Bearer {backend}"}, json={"turns": turns}
    )
    assert r.json() == {"stored": 4, "duplicates": 0}

    def pending() -> dict[str, str]:
        items = http.get("/v1/review/pending").json()["pending"]
        return {p["normalized_key"]: p["proposal_id"] for p in items}

    stated = ["preference.language", "preference.package_manager", "preference.ui_theme"]
    assert sorted(pending()) == sorted([*stated, "preference.note"])
    native_dialogs: list[str] = []

    def native_dialog(dialog: Any) -> None:  # window.confirm/alert: recorded, then dismissed
        native_dialogs.append(dialog.message)
        dialog.dismiss()

    with sync_playwright() as playwright:
        browser, page = _chromium_page(playwright)
        page.on("dialog", native_dialog)
        try:
            page.goto(f"{served}/console")
            page.fill("#api-key", reviewer)
            page.click("#use-key")
            page.wait_for_selector("article.candidate")
            shown = page.locator("article.candidate:visible")
            assert shown.count() == 4 and page.locator("#count").inner_text() == "4 pending"

            # filters: by key, by reason (its option in words), by text in either language
            page.select_option("#filter-key", "preference.ui_theme")
            assert shown.locator(".value").all_inner_texts() == ["dark"]
            page.select_option("#filter-key", "")
            option = page.locator("#filter-reason option[value='explicit_instruction']")
            assert option.inner_text() == in_words("explicit_instruction") != "explicit_instruction"
            page.select_option("#filter-reason", "explicit_instruction")
            assert shown.locator(".key").all_inner_texts() == ["preference.note"]
            page.select_option("#filter-reason", "")
            page.fill("#filter-text", "深色")
            assert shown.locator(".value").all_inner_texts() == ["dark"]
            page.fill("#filter-text", "")
            page.select_option("#filter-reason", "first_person_durable")
            assert sorted(shown.locator(".key").all_inner_texts()) == stated
            page.check("#pick-all")
            assert page.locator("#shown").inner_text() == "showing 3 of 4 · 3 selected"

            # as if the language candidate changed after the page loaded: its stored hash is
            # no longer the one on its card
            language = pending()["preference.language"]  # asked before SQLite's write lock
            with sqlite_engine.begin() as conn:
                conn.execute(
                    update(proposals)
                    .where(proposals.c.proposal_id == language)
                    .values(payload_hash="f" * 64)
                )
            page.click("#bulk-approve")
            dialog = page.locator("#bulk-dialog")
            assert dialog.is_visible()
            assert page.locator("#bulk-title").inner_text() == "Approve 3 candidates?"
            keys = page.locator("#bulk-keys li").all_inner_texts()
            assert keys == [f"{k} × 1" for k in stated]
            page.click("#bulk-confirm")
            # the summary is written once every card has its outcome (no waiting on a clock;
            # the page's CSP forbids the string evaluation wait_for_function would need)
            page.locator("#status", has_text="Approved").wait_for()
            assert page.locator("article.candidate.approved").count() == 2
            assert not dialog.is_visible()
            refused = page.locator("article.candidate.refused")
            assert refused.locator(".key").inner_text() == "preference.language"
            assert "payload_hash_mismatch" in refused.locator(".outcome").inner_text()
            assert page.locator("#count").inner_text() == "2 pending"
            assert "Approved 2 of 3; 1 refused" in page.locator("#status").inner_text()
            memories = http.get("/v1/subjects/alice/recall").json()["memories"]
            assert sorted(m["value"] for m in memories) == ["dark", "pnpm"]
            assert sorted(pending()) == ["preference.language", "preference.note"]

            # bulk reject: cancelling the confirmation decides nothing
            page.select_option("#filter-reason", "")
            page.locator("article.candidate", has_text="staging").locator(".pick").check()
            assert page.locator("#shown").inner_text() == "showing 4 of 4 · 1 selected"
            page.click("#bulk-reject")
            assert page.locator("#bulk-title").inner_text() == "Reject 1 candidate?"
            page.click("#bulk-cancel")
            assert sorted(pending()) == ["preference.language", "preference.note"]
            page.click("#bulk-reject")
            page.click("#bulk-confirm")
            page.wait_for_selector("article.candidate.rejected")
            assert page.locator("#count").inner_text() == "1 pending"
            assert sorted(pending()) == ["preference.language"]
            assert native_dialogs == []  # the one confirmation is the page's own dialog
        finally:
            browser.close()

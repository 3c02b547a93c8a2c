"""The curate page of the review console in a real browser (headless Chromium via
Playwright, the API on loopback over SQLite): a reviewer approves the catalogue, an attester
samples with the helper and signs; both are bound to the plan hash on the page."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine

from memwarden_curate.stages import RulesRewriter, check_plan, make_plan, take_snapshot
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.state.auth import Principal, Scope, create_principal
from memwarden_shared.store.db import unit_of_work
from tests.curate_helpers import say_all, the_run
from tests.test_console_browser import _chromium_page, served  # noqa: F401 (fixture)
from tests.test_curate import LINES

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)

TENANT = "acme"


def test_console__a_reviewer_approves_and_an_attester_samples_and_signs(
    served: str,  # noqa: F811
    sqlite_engine: Engine,
) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[test]'")
    say_all(sqlite_engine, TENANT, LINES)
    planner = Principal("planner", TENANT, frozenset({Scope.ADMIN}))
    run = take_snapshot(planner, TENANT, ["u1"], engine=sqlite_engine)["run_id"]
    make_plan(planner, run, RulesRewriter(default_registry()), engine=sqlite_engine)
    check_plan(planner, run, engine=sqlite_engine)
    with sqlite_engine.begin() as conn:
        reviewer = create_principal(conn, "reviewer", TENANT, [Scope.REVIEW])
        attester = create_principal(conn, "attester", TENANT, [Scope.ADMIN])

    def open_run(page: Any, key: str) -> None:
        page.goto(f"{served}/console/curate")
        page.fill("#api-key", key)
        page.fill("#run-id", run)
        page.click("#load-run")
        page.wait_for_selector("#catalogue tbody tr")

    with sync_playwright() as playwright:
        browser, page = _chromium_page(playwright)
        try:
            open_run(page, reviewer)
            rows = page.locator("#catalogue tbody tr")
            assert rows.count() == 10
            dup = page.locator('#catalogue tr[data-disposition="duplicate"]')
            assert dup.locator(".value").inner_text() == "I deploy only on the Tuesdays"
            assert dup.locator(".target").inner_text() == "I deploy only on Tuesdays"
            page.click("#approve")
            page.wait_for_selector('#outcome:has-text("review: approved")')

            open_run(page, attester)
            page.click("#attest")  # without the catalogue box ticked: refused by the server
            page.wait_for_selector('#outcome:has-text("catalogue_unseen")')
            page.click("#sample")
            page.check("#saw-catalogue")
            page.click("#attest")
            page.wait_for_selector('#outcome:has-text("attested: attested")')
        finally:
            browser.close()
    with unit_of_work(sqlite_engine) as uow:
        assert the_run(uow.conn, run).stage == "attested"

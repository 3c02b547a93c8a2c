"""No secret anywhere (SPEC §5.6 v2, §13 ``secret_absent``): hostile secrets in English and
Chinese go through the real pipeline over the API (turns, an edit, external proposals, the
review listing), a shadow replay and the logs; then every text column of every table of the
database is dumped, on SQLite and PostgreSQL, and no canary may appear in any of it."""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, MetaData, String, Text, select

from memwarden_replay.io import ReplayOptions
from memwarden_shared.store.db import engine_for
from tests.test_api import api_client, auth, make_keys, turn
from tests.test_replay import replay

# Pieces joined at run time so this file never reads as a secret to a scanner.
AGE = "AGE-SECRET-KEY-1" + "QYPRZ9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2
AGE = AGE[: len("AGE-SECRET-KEY-1") + 58]
DD = "3f9a7c1e5b2d4f6a" + "8c0e1b3d5f7a9c2e"
PEM_BODY = "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQIq7Zx9"
PEM = f"-----BEGIN ENCRYPTED {'PRIVATE'} KEY-----\n{PEM_BODY}\n-----END ENCRYPTED PRIVATE KEY-----"

# (turns of one session, canaries that must appear nowhere)
CASES: list[tuple[list[str], list[str]]] = [
    ([f"Please remember my age key {AGE} for backups."], [AGE]),
    ([f"our datadog api key: {DD}"], [DD]),
    ([f"deploy key below, keep it:\n{PEM}\nthanks"], [PEM_BODY]),
    (["The wifi key is Sunfl0wer-Kite-88, remember it."], ["Sunfl0wer-Kite-88"]),
    (["log in to the NAS with admin / Qz7!harbor"], ["Qz7!harbor"]),
    (["the front door code is 48213."], ["48213"]),
    (["my p\u0430ssword is Velvet#Moth42"], ["Velvet#Moth42"]),  # Cyrillic а in the cue
    (["my pass\u200bword: Gl4cier$Owl"], ["Gl4cier$Owl"]),  # zero-width space in the cue
    (["My bank password is. Tr1dent&Fern9"], ["Tr1dent&Fern9"]),
    (["remember my bank PIN is", "7305"], ["7305"]),
    (["my card 4539.1488.0343.6467 expires soon"], ["4539.1488.0343.6467", "4539148803436467"]),
    (["IBAN DE89-3704-0044-0532-0130-00 please"], ["DE89-3704-0044-0532-0130-00"]),
    (["开门密码是 936148，记住。"], ["936148"]),
    (["我的支付密码是七三九一五八"], ["七三九一五八"]),
    (["密保答案是王翠花。"], ["王翠花"]),
    (["助记词：海豚 月光 铁塔 紫藤 琥珀 雨伞 松果 蜂蜜 钟楼 渔船 风筝 稻草"], ["海豚 月光 铁塔"]),
    (["我的密碼是 Pl4net#Ridge"], ["Pl4net#Ridge"]),  # traditional 碼
    (["我的银行卡密码是", "520913"], ["520913"]),
]
REVIEWED = "I live in Berlin. The wifi password is Marigold-Tusk-71."
REVIEWED_CANARY = "Marigold-Tusk-71"
EDITED = "I prefer pnpm. my new door code is 66120"
EDITED_CANARY = "66120"


def _forms(canary: str) -> list[re.Pattern[str]]:
    """The canary as written, without separators, and JSON-escaped (ensure_ascii), as a
    whole token: a PIN like 7305 also occurs inside hex hashes and ids by chance."""
    bare = re.sub(r"[\s.\-]", "", canary)
    forms = {canary, bare, json.dumps(canary)[1:-1], json.dumps(bare)[1:-1]}
    return [re.compile(rf"(?<![A-Za-z0-9]){re.escape(f)}(?![A-Za-z0-9])") for f in forms]


def _dump(engine: Engine) -> dict[str, str]:
    """Every string column of every table in the database, reflected (nothing left out)."""
    reflected = MetaData()
    reflected.reflect(engine)
    out = {}
    with engine.connect() as conn:
        for table in reflected.sorted_tables:
            cols = [c for c in table.columns if isinstance(c.type, String | Text)]
            if cols:
                out[table.name] = "\n".join(
                    "\t".join(str(v) for v in row) for row in conn.execute(select(*cols))
                )
    return out


def _all_canaries() -> list[str]:
    return [c for _, canaries in CASES for c in canaries] + [REVIEWED_CANARY, EDITED_CANARY]


def _through_the_api(engine: Engine, tenant: str, make_proposal: Callable[..., Any]) -> str:
    """Turns, external proposals on each secret sentence, an edit and the review listing;
    returns every response body, which must hold no canary either."""
    keys = make_keys(engine, tenant)
    bodies = []
    with api_client(engine) as client:
        for i, (turns, _) in enumerate(CASES):
            batch = [
                turn(None, text, f"d{i}-{j}", session=f"s{i}", created_at=f"2026-05-01T09:0{j}:00Z")
                for j, text in enumerate(turns)
            ]
            r = client.post(
                "/v1/turns", headers=auth(keys.proposer), json={"turns": batch, "extract": True}
            )
            assert r.status_code == 200, r.text
            bodies.append(r.text)
            # the proposer quotes the secret sentence as it saw it, and files it as a note
            last = turns[-1]
            proposal = make_proposal(
                tenant,
                f"d{i}-{len(turns) - 1}",
                last,
                last,
                normalized_key="preference.note",
                value=last,
                scope={"kind": "workspace", "key": "w"},
            )
            r = client.post(
                "/v1/proposals", headers=auth(keys.proposer), json={"proposals": [proposal]}
            )
            assert r.status_code == 200, r.text
            assert r.json()["receipts"][0]["decision"] == "REJECT"
            bodies.append(r.text)
        both = [turn(None, REVIEWED, "rv"), turn(None, "I prefer yarn.", "ed")]
        r = client.post(
            "/v1/turns", headers=auth(keys.proposer), json={"turns": both, "extract": False}
        )
        assert r.status_code == 200, r.text
        sentence = "I live in Berlin."
        located = make_proposal(
            tenant, "rv", REVIEWED, sentence, kind="profile", normalized_key="profile.location"
        )
        located["value"] = "Berlin"
        r = client.post("/v1/proposals", headers=auth(keys.proposer), json={"proposals": [located]})
        assert r.json()["receipts"][0]["decision"] == "NEEDS_CONFIRMATION", r.text
        r = client.post(
            "/v1/messages/ed/revisions", headers=auth(keys.proposer), json={"text": EDITED}
        )
        assert r.status_code == 200, r.text
        r = client.get("/v1/review/pending", headers=auth(keys.reviewer))
        assert r.status_code == 200 and r.json()["pending"], r.text
        bodies.append(r.text)
    return "\n".join(bodies)


def _shadow_replay(engine: Engine, tenant: str, tmp_path: Path) -> str:
    path = tmp_path / "history.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for i, (turns, _) in enumerate(CASES):
            for j, text in enumerate(turns):
                row = turn(
                    None, text, f"h{i}-{j}", session=f"hs{i}", created_at=f"2026-05-02T09:0{j}:00Z"
                )
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    report = replay(
        [path], ReplayOptions(run_id=f"shadow-{tenant}", default_tenant=tenant, shadow=True),
        engine=engine,
    )  # fmt: skip
    assert report["stored"] == sum(len(t) for t, _ in CASES)
    return json.dumps(report, ensure_ascii=False, default=str)


@pytest.fixture(params=["sqlite", "postgres"])
def own_store(request: pytest.FixtureRequest, sqlite_engine: Engine) -> Iterator[Engine]:
    """A database of this test's own on each backend: the dump reads all of it."""
    if request.param == "sqlite":
        yield sqlite_engine
        return
    engine = engine_for(request.getfixturevalue("fresh_pg_url"))
    yield engine
    engine.dispose()


def test_secret_dump__no_canary_in_the_database_outputs_or_logs(
    own_store: Engine,
    make_proposal: Callable[..., dict[str, Any]],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    store = own_store
    tenant = "dump-" + uuid.uuid4().hex[:8]
    outputs = _through_the_api(store, tenant, make_proposal)
    outputs += _shadow_replay(store, "shadow-" + tenant, tmp_path)
    logs = "\n".join(r.getMessage() for r in caplog.records) + caplog.text
    dump = _dump(store)
    assert "messages" in dump and tenant in dump["messages"]  # the dump did read the store
    for canary in _all_canaries():
        for form in _forms(canary):
            leaked = [name for name, text in dump.items() if form.search(text)]
            assert leaked == [], (canary, leaked)
            assert not form.search(outputs), canary
            assert not form.search(logs), canary

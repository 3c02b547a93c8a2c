"""``memwarden eval-recall``: recall@1, recall@5 and MRR on a labelled query set, for the
default ranking and for the OpenAI-compatible adapter (against a local fake server, which
checks plumbing only). These tests check the report and the arithmetic, not how good the
figures are."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memwarden.cli import main
from memwarden_recall.quality import _figures
from memwarden_shared.config import get_settings
from memwarden_shared.remote.embedders import current_embedder
from tests.fake_embeddings import fake_embedding_server

QUERY_SET = Path(__file__).parent / "breadth" / "recall_queries.jsonl"
FIGURES = {"queries", "recall_at_1", "recall_at_5", "mrr"}


@pytest.fixture(autouse=True)
def fresh_settings() -> Iterator[None]:
    get_settings.cache_clear()
    current_embedder.cache_clear()
    yield
    get_settings.cache_clear()
    current_embedder.cache_clear()


def _well_formed(report: dict[str, Any], queries: int) -> None:
    assert set(report) >= FIGURES and report["queries"] == queries
    for figures in [report, *report["by_lang"].values(), *report["by_key"].values()]:
        assert 0 <= figures["recall_at_1"] <= figures["mrr"] <= 1
        assert figures["recall_at_1"] <= figures["recall_at_5"] <= 1
    assert sum(f["queries"] for f in report["by_lang"].values()) == queries
    assert sum(f["queries"] for f in report["by_key"].values()) == queries
    firsts = round(report["recall_at_1"] * queries)
    assert len(report["not_first"]) == queries - firsts


def test_figures__recall_at_k_and_mrr_by_hand() -> None:
    assert _figures([1, 3, None, 6]) == {
        "queries": 4,
        "recall_at_1": 0.25,
        "recall_at_5": 0.5,
        "mrr": round((1 + 1 / 3 + 1 / 6) / 4, 4),
    }


def test_eval_recall__reports_the_default_ranking_on_the_breadth_set(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert main(["eval-recall", str(QUERY_SET), "--report", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["embedder"] == "hashed-ngram-v2-256"
    assert set(report["by_lang"]) == {"en", "zh", "mixed"}
    _well_formed(report, 157)


def test_eval_recall__a_query_naming_its_value_ranks_it_first(tmp_path: Path) -> None:
    memories = [
        {"kind": "preference", "normalized_key": "preference.note", "value": v}
        for v in ("alpha release notes", "beta dashboards", "gamma rays")
    ]
    lines = [
        {"id": f"q{i}", "lang": "en", "memories": memories, "query": m["value"], "relevant": [i]}
        for i, m in enumerate(memories)
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    out = tmp_path / "r.json"
    assert main(["eval-recall", str(path), "--report", str(out)]) == 0
    report = json.loads(out.read_text())
    assert (report["recall_at_1"], report["mrr"], report["not_first"]) == (1.0, 1.0, [])


def test_eval_recall__through_the_openai_adapter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake_embedding_server(64) as fake:
        monkeypatch.setenv("MEMWARDEN_EMBEDDER", "openai")
        monkeypatch.setenv("MEMWARDEN_EMBEDDING_BASE_URL", fake.url)
        monkeypatch.setenv("MEMWARDEN_EMBEDDING_MODEL", "fake-embed")
        monkeypatch.setenv("MEMWARDEN_EMBEDDING_DIM", "64")
        out = tmp_path / "report.json"
        assert main(["eval-recall", str(QUERY_SET), "--report", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["embedder"] == "openai:fake-embed:64"
    _well_formed(report, 157)
    # one batched request per query: the query and its memories together
    assert len(fake.requests) == 157
    assert all(r["model"] == "fake-embed" for r in fake.requests)


def test_eval_recall__unconfigured_adapter_is_one_line_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MEMWARDEN_EMBEDDER", "openai")
    assert main(["eval-recall", str(QUERY_SET)]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


def test_eval_recall__a_bad_line_is_refused_with_its_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"query": "x", "memories": [], "relevant": [0]}\n')
    assert main(["eval-recall", str(path)]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:1" in err and err.strip().count("\n") == 0

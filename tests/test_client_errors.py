"""Every error of ``memwarden.Memory`` is one of its five, and quotes nothing the caller
passed (issue 26 item 5): a bad or unreachable database, an unsupported URL scheme, a
malformed turn."""

from __future__ import annotations

import random
import string
import uuid
from typing import Any

import pytest

from memwarden import InvalidInput, Memory, MemwardenError, Unavailable


def _secret() -> str:
    return "".join(random.choices(string.ascii_letters + string.digits, k=16))


@pytest.mark.parametrize("scheme", ["mysql", "mysql+pymysql", "mssql", "nosuchdb", "http"])
def test_client_errors__an_unsupported_database_url_is_unavailable(scheme: str) -> None:
    password = _secret()
    with pytest.raises(Unavailable) as caught:
        Memory(database_url=f"{scheme}://someone:{password}@db.internal:3306/app")
    assert caught.value.code == "bad_url" and password not in str(caught.value)


def test_client_errors__an_unreachable_database_is_unavailable() -> None:
    password = _secret()
    with pytest.raises(Unavailable) as caught:
        Memory(database_url=f"postgresql://nobody:{password}@127.0.0.1:1/x")
    assert password not in str(caught.value) and "nobody" not in str(caught.value)


@pytest.mark.postgres
def test_client_errors__a_postgres_url_is_accepted(pg_engine: Any) -> None:
    rest = pg_engine.url.render_as_string(hide_password=False).split("://", 1)[1]
    for scheme in ("postgres", "postgresql"):
        with Memory(database_url=f"{scheme}://{rest}", broker_url="redis://127.0.0.1:1/0") as m:
            assert m.recall("s-" + uuid.uuid4().hex[:6]) == []


def test_client_errors__a_malformed_turn_is_invalid_input_without_its_text(
    tmp_path: Any,
) -> None:
    text = "my locker code is " + _secret()
    malformed: list[Any] = [
        {"role": "user", "content": text, "unexpected": True},
        {"role": "narrator", "content": text},
        {"role": "user", "content": [{"type": "image_url", "url": text}]},
        {"text": text},  # no subject
        42,
    ]
    with Memory(data_dir=tmp_path) as memory:
        for turn in malformed:
            with pytest.raises(InvalidInput) as caught:
                memory.add([turn], user_id=None if "text" in str(turn)[:8] else "u")
            assert isinstance(caught.value, MemwardenError) and isinstance(caught.value, ValueError)
            assert text not in str(caught.value) and caught.value.__cause__ is None

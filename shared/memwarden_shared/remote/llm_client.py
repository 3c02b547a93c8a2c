"""One OpenAI-compatible chat completions endpoint (OpenAI, vLLM, Ollama), with failures
reduced to codes. Nothing here logs or raises with text from either side.

Shared by the LLM extractor and the curate LLM rewriter/reviewer; each says which JSON
schema it wants (``schema_name``) and names its own versions.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Self

import httpx

from memwarden_shared.config import Settings

MAX_RESPONSE_BYTES = 1 << 20


class Failure(StrEnum):
    """Why a turn's extraction failed; these codes are all that is ever logged."""

    TIMEOUT = "timeout"
    UNREACHABLE = "unreachable"
    HTTP_ERROR = "http_error"
    RESPONSE_TOO_LARGE = "response_too_large"
    MALFORMED_RESPONSE = "malformed_response"
    REFUSED = "refused"
    MALFORMED_JSON = "malformed_json"
    MALFORMED_OUTPUT = "malformed_output"


class LlmError(Exception):
    """A failed call. Carries only a :class:`Failure` code, never text from either side."""

    def __init__(self, failure: Failure, detail: str = "") -> None:
        super().__init__(f"{failure.value}{' ' + detail if detail else ''}")
        self.failure = failure


@dataclass(frozen=True)
class Completion:
    content: str
    tokens: int
    tokens_estimated: bool  # the server sent no usable ``usage``


class ChatClient:
    """One OpenAI-compatible chat completions endpoint (OpenAI, vLLM, Ollama)."""

    schema_name = "response"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout_seconds: float = 30.0,
        http: httpx.Client | None = None,
    ) -> None:
        if not base_url or not model:
            raise ValueError("an LLM needs MEMWARDEN_LLM_BASE_URL and MEMWARDEN_LLM_MODEL")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.timeout_seconds = timeout_seconds
        # per request, so a caller-supplied ``http`` client still authenticates
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = http or httpx.Client()
        self._owns_http = http is None

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        return cls(
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=settings.llm_api_key.get_secret_value(),
            timeout_seconds=settings.llm_timeout_seconds,
        )

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(
        self, messages: list[dict[str, str]], schema: dict[str, Any], *, timeout: float
    ) -> Completion:
        """One chat completion under a strict JSON schema, within ``timeout`` seconds overall
        (checked between received chunks, so a trickling server is cut off too)."""
        request = {
            "model": self.model,
            "temperature": 0,
            "messages": messages,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": self.schema_name, "strict": True, "schema": schema},
            },
        }
        raw = self._post(request, timeout)
        try:
            data = json.loads(raw)
            message = data["choices"][0]["message"]
        except (ValueError, RecursionError, KeyError, IndexError, TypeError):
            raise LlmError(Failure.MALFORMED_RESPONSE) from None
        if not isinstance(message, dict):
            raise LlmError(Failure.MALFORMED_RESPONSE)
        if message.get("refusal"):
            raise LlmError(Failure.REFUSED)
        content = message.get("content")
        if not isinstance(content, str):
            raise LlmError(Failure.MALFORMED_RESPONSE)
        tokens = _reported_tokens(data.get("usage"))
        if tokens is None:
            # No usage from the server: charge a conservative estimate (about 3 UTF-8 bytes
            # per token undercounts neither English nor Chinese) so the budget still binds.
            sent = len(json.dumps(messages, ensure_ascii=False).encode())
            return Completion(content, math.ceil((sent + len(raw)) / 3), True)
        return Completion(content, tokens, False)

    def _post(self, request: dict[str, Any], timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        chunks: list[bytes] = []
        size = 0
        try:
            with self._http.stream(
                "POST", self.url, json=request, headers=self._headers, timeout=timeout
            ) as resp:
                if resp.status_code != httpx.codes.OK:
                    raise LlmError(Failure.HTTP_ERROR, str(resp.status_code))
                for chunk in resp.iter_bytes():
                    size += len(chunk)
                    if size > MAX_RESPONSE_BYTES:
                        raise LlmError(Failure.RESPONSE_TOO_LARGE)
                    if time.monotonic() > deadline:
                        raise LlmError(Failure.TIMEOUT)
                    chunks.append(chunk)
        except httpx.TimeoutException:
            raise LlmError(Failure.TIMEOUT) from None
        except httpx.HTTPError:
            # httpx errors can name the request; the cause is dropped so nothing echoes it.
            raise LlmError(Failure.UNREACHABLE) from None
        return b"".join(chunks)


def _reported_tokens(usage: Any) -> int | None:
    """``total_tokens`` (or prompt + completion) when plausible; a negative or non-integer
    count is treated as missing so a hostile server cannot refill the budget."""
    if not isinstance(usage, dict):
        return None
    total = usage.get("total_tokens")
    if isinstance(total, int) and not isinstance(total, bool) and total >= 0:
        return total
    parts = [usage.get("prompt_tokens"), usage.get("completion_tokens")]
    if all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in parts):
        return sum(p for p in parts if isinstance(p, int))
    return None

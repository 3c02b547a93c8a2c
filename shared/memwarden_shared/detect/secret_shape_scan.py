"""Every secret found by shape, cue or catalogue in one text (SPEC §5.6 v3). Pure.

:func:`scan_shapes` folds the text once (:mod:`memwarden_shared.text.fold`) and runs:

1. credential shapes, digit runs, URL userinfo, ``.env`` assignments, PEM/OpenSSH blocks
   (:mod:`secret_shapes`);
2. credential-cue windows and spelled sequences (:mod:`secret_cue_window`);
3. identity, tax, bank and crypto numbers and BIP-39 phrases (:mod:`secret_ids`);
4. base64, hex and percent-encoded tokens whose decoded form holds a secret by any of these
   or by the vendor detectors of :mod:`secrets` (:mod:`secret_encoded`).

It complements :func:`memwarden_shared.detect.secrets.find_secrets` (vendor formats,
checksummed cards, IBANs and resident ids, stated passwords), which names secrets it
recognises; this module fails closed on what it does not. Findings hold a kind and
offsets into the ORIGINAL text, never the secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memwarden_shared.detect import secret_cue_window, secret_encoded, secret_ids, secret_shapes
from memwarden_shared.detect.secrets import find_secrets, secret_kinds
from memwarden_shared.text.batch_memo import per_batch
from memwarden_shared.text.fold import Level, fold

_MASKED = "*• \t\n"  # what a masked secret became
# A template's placeholder where a value will go: "${DB_PASSWORD}", "<your password>".
_TEMPLATE = re.compile(r"\$\{?[A-Za-z_][\w.]*\}?|%[A-Z_]+%|<[^>]*>?|\{\{[^}]*\}?\}?")


@dataclass(frozen=True, slots=True)
class ShapeFinding:
    """A secret of ``kind`` at ``[start, end)`` (code points) of the text scanned."""

    kind: str
    start: int
    end: int


def _scan_folded(text: str, depth: int) -> list[tuple[str, int, int]]:
    found = [
        *secret_shapes.find_shapes(text),
        *secret_cue_window.find_cue_windows(text),
        *secret_cue_window.find_spelled(text),
        *secret_ids.find_ids(text),
        *secret_ids.find_seed_phrases(text),
    ]

    def holds_secret(decoded: str) -> bool:
        return bool(find_secrets(decoded)) or bool(
            _scan_folded(fold(decoded, Level.SCRIPT).text, depth + 1)
        )

    found += secret_encoded.find_encoded(text, holds_secret, depth)
    # What masking left ("****") or a placeholder ("${DB_PASSWORD}") is no secret.
    return [f for f in found if _live(text[f[1] : f[2]])]


def _live(found: str) -> bool:
    return bool(found.strip(_MASKED)) and not _TEMPLATE.fullmatch(found)


@per_batch  # the gate scans a value for each check that reads it
def scan_shapes(text: str) -> list[ShapeFinding]:
    """Every shape, cue-window and catalogue finding in ``text``, ordered by start; offsets
    into ``text`` as given. Overlapping findings are all kept (masking merges them)."""
    folded = fold(text, Level.SCRIPT)
    out = set()
    for kind, start, end in _scan_folded(folded.text, 0):
        orig_start, orig_end = folded.span(start, end)
        out.add(ShapeFinding(kind, orig_start, orig_end))
    return sorted(out, key=lambda f: (f.start, f.end, f.kind))


def shape_kinds(text: str) -> list[str]:
    """The sorted, unique kinds :func:`scan_shapes` finds: safe to use as reason codes."""
    return sorted({f.kind for f in scan_shapes(text)})


def value_secret_kinds(text: str) -> list[str]:
    """Every kind of secret in a proposal's value, by name (:func:`secret_kinds`) or by
    shape (:func:`shape_kinds`): what the gate refuses as ``secret``. A bare digit run is
    left to ingest, which judged it in its message (a phone number in Chinese text, an
    order number after its word); the value alone has lost that context."""
    shapes = {f.kind for f in scan_shapes(text) if f.kind != secret_shapes.DIGIT_RUN}
    return sorted({*secret_kinds(text), *shapes})

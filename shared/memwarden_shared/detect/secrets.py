"""Find secrets in chat text so the gate can refuse them (SPEC §5.6). Pure and deterministic.

Layers, all run on text folded by :mod:`memwarden_shared.text.fold` at ``SCRIPT`` (NFKC,
zero-width characters dropped) with offsets mapped back to the ORIGINAL text:

1. Vendor formats. From detect-secrets' plugin ``denylist`` regexes: AWS access key ids and
   quoted AWS secrets, GitHub classic tokens, GitLab tokens (all prefixes), Slack tokens and
   webhooks, Stripe live keys, legacy OpenAI keys, ``.npmrc`` auth tokens, PEM private key
   markers, Basic-auth URLs, Discord, SendGrid, Twilio, Telegram, PyPI, Mailchimp, Square
   and Azure storage keys; its JWT ``is_formally_valid`` check. Added here because those
   plugins miss them: ``github_pat_`` and 30+ char ``gh?_`` tokens, any-shape ``glpat-``,
   ``xox?-`` without digit groups, ``sk_test_``/``rk_*`` Stripe keys, ``sk-``/``sk-proj-``
   OpenAI-style keys, bare ``npm_`` tokens, Google ``AIza`` keys, AWS secret keys named in
   the sentence, JWTs whose header must decode to JSON with ``alg``, whole PEM blocks.
2. Checksummed numbers (:mod:`shared.secret_numbers`): payment cards (network prefix and
   length, Luhn), IBANs (country length, mod 97), Chinese resident ids (GB 11643 check
   digit, real birth date), US SSNs (issuing rules).
3. Stated passwords, PINs, keys and id numbers (:mod:`shared.secret_phrases`), English and
   Chinese: the value after a cue such as ``my password is`` or ``密码是``.
4. High-entropy tokens: long mixed-case-and-digit strings in no other shape, and shorter
   or single-class tokens (hex, upper-case keys) when a key word stands near them.
5. gitleaks' default rule set (:mod:`shared.secret_catalogue`): 200+ vendor formats
   (observability, cloud, e-commerce, data platforms, ``AGE-SECRET-KEY-1``, chat webhooks…).
6. Secrets said in plain speech and split over a sentence break (:mod:`shared.secret_spoken`):
   wifi keys, door codes, seed phrases, backup codes, 开门密码, 密保答案, PINs as words.

A finding holds only a kind and offsets, never the matched text, so neither its repr nor
any error derived from it can leak the secret; this module logs nothing.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from itertools import accumulate

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from memwarden_shared.detect import secret_catalogue, secret_numbers, secret_phrases, secret_spoken
from memwarden_shared.text.batch_memo import per_batch
from memwarden_shared.text.cue_words import CueWords
from memwarden_shared.text.fold import Level, fold


class SecretKind(StrEnum):
    """What a finding is; the values are safe to use as reason codes."""

    GITHUB_TOKEN = "github_token"
    GITLAB_TOKEN = "gitlab_token"
    SLACK_TOKEN = "slack_token"
    STRIPE_KEY = "stripe_key"
    OPENAI_KEY = "openai_key"
    NPM_TOKEN = "npm_token"
    PYPI_TOKEN = "pypi_token"
    GOOGLE_API_KEY = "google_api_key"
    AWS_ACCESS_KEY = "aws_access_key"
    AWS_SECRET_KEY = "aws_secret_key"
    AZURE_STORAGE_KEY = "azure_storage_key"
    DISCORD_TOKEN = "discord_token"
    SENDGRID_KEY = "sendgrid_key"
    TWILIO_KEY = "twilio_key"
    TELEGRAM_TOKEN = "telegram_token"
    MAILCHIMP_KEY = "mailchimp_key"
    SQUARE_SECRET = "square_secret"
    JWT = "jwt"
    PRIVATE_KEY = "private_key"
    GENERIC_API_KEY = "generic_api_key"
    PASSWORD = "password"
    PIN = "pin"
    PAYMENT_CARD = "payment_card"
    IBAN = "iban"
    CN_RESIDENT_ID = "cn_resident_id"
    US_SSN = "us_ssn"
    NATIONAL_ID = "national_id"
    HIGH_ENTROPY = "high_entropy"
    VENDOR_TOKEN = "vendor_token"
    SEED_PHRASE = "seed_phrase"
    BACKUP_CODES = "backup_codes"
    SECURITY_ANSWER = "security_answer"


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """A secret of ``kind`` at ``[start, end)`` (code points) of the text that was scanned.

    Holds no copy of the secret, so printing or logging a finding is always safe.
    """

    kind: SecretKind
    start: int
    end: int


_K = SecretKind
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_-]")
# (kind, pattern, group holding the secret, extend the span over trailing token chars)
_VENDOR: tuple[tuple[SecretKind, re.Pattern[str], int, bool], ...] = (
    *((_K.GITHUB_TOKEN, p, 0, True) for p in GitHubTokenDetector.denylist),
    (_K.GITHUB_TOKEN, re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{22,}", re.A), 0, True),
    *((_K.GITLAB_TOKEN, p, 0, True) for p in GitLabTokenDetector.denylist),
    (_K.GITLAB_TOKEN, re.compile(r"glpat-[A-Za-z0-9_-]{16,}"), 0, True),
    *((_K.SLACK_TOKEN, p, 0, True) for p in SlackDetector.denylist),
    (_K.SLACK_TOKEN, re.compile(r"xox[abeoprs]-[A-Za-z0-9-]{10,}"), 0, True),
    *((_K.STRIPE_KEY, p, 0, True) for p in StripeDetector.denylist),
    (_K.STRIPE_KEY, re.compile(r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"), 0, True),
    *((_K.OPENAI_KEY, p, 0, True) for p in OpenAIDetector.denylist),
    # Needs a digit and a letter: "sk-" also starts hyphenated words and slugs.
    (
        _K.OPENAI_KEY,
        re.compile(r"sk-(?=[\w-]{0,99}\d)(?=[\w-]{0,99}[A-Za-z])[\w-]{20,}", re.A),
        0,
        True,
    ),
    *((_K.NPM_TOKEN, p, 1, False) for p in NpmDetector.denylist),
    (_K.NPM_TOKEN, re.compile(r"npm_[A-Za-z0-9]{36}"), 0, True),
    *((_K.PYPI_TOKEN, p, 0, True) for p in PypiTokenDetector.denylist),
    (_K.GOOGLE_API_KEY, re.compile(r"AIza[0-9A-Za-z_-]{35}"), 0, True),
    (_K.AWS_ACCESS_KEY, AWSKeyDetector.denylist[0], 0, True),
    (_K.AWS_SECRET_KEY, AWSKeyDetector.denylist[1], 1, False),
    *((_K.AZURE_STORAGE_KEY, p, 0, False) for p in AzureStorageKeyDetector.denylist),
    *((_K.DISCORD_TOKEN, p, 0, True) for p in DiscordBotTokenDetector.denylist),
    *((_K.SENDGRID_KEY, p, 0, True) for p in SendGridDetector.denylist),
    *((_K.TWILIO_KEY, p, 0, True) for p in TwilioKeyDetector.denylist),
    *((_K.TELEGRAM_TOKEN, p, 0, True) for p in TelegramBotTokenDetector.denylist),
    *((_K.MAILCHIMP_KEY, p, 0, True) for p in MailchimpDetector.denylist),
    *((_K.SQUARE_SECRET, p, 0, True) for p in SquareOAuthDetector.denylist),
    *((_K.PASSWORD, p, 1, False) for p in BasicAuthDetector.denylist),
    # ArtifactoryDetector is left out: its "AP[0-9A-F]…" password shape matches upper-case
    # words such as APACHECOMMONS in prose.
)

_OPENAI_LEGACY = frozenset(OpenAIDetector.denylist)


def _scoped(pattern: re.Pattern[str]) -> str:
    """``pattern`` as a group that keeps its own flags inside a larger alternation."""
    if "(?P=" in pattern.pattern or re.search(r"\\[1-9]", pattern.pattern):
        raise ValueError("a back-reference would point elsewhere inside an alternation")
    flags = "".join(f for f, bit in (("a", re.A), ("i", re.I), ("m", re.M), ("s", re.S),
                                     ("x", re.X)) if pattern.flags & bit)  # fmt: skip
    return f"(?{flags}:{pattern.pattern})"


# Every vendor pattern (but the legacy OpenAI one, gated by its marker) as one alternation:
# at any position it matches exactly when one of them does, so when it finds nothing
# anywhere no pattern would, and the per-pattern scans (most of the cost) are skipped.
_ANY_VENDOR = re.compile("|".join(_scoped(p) for _, p, _, _ in _VENDOR if p not in _OPENAI_LEGACY))
_AWS_CONTEXT = re.compile(r"(?<![a-z])aws(?![a-z])|amazon|A(?:KIA|SIA)[0-9A-Z]{16}", re.IGNORECASE)
_AWS_WORDS = CueWords("aws|amazon|akia|asia")  # in every match of the pattern above
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")
_JWT = re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|---- END SSH2[^\n]*----")
# A key word within a few words before a token: "datadog api key 3f9a…", "TOTP seed JBSW…".
_KEY_CONTEXT = re.compile(
    r"(?i)(?:api|access|secret|private|auth|app|client|license|signing|encryption|master"
    r"|webhook|bearer|session|refresh)[ _-]?(?:key|token|secret|id)|\b(?:key|token|secret"
    r"|credential|creds|totp|otp|2fa|mfa|seed|hmac|salt|signature)s?\b|密钥|秘钥|令牌|凭证"
)
# Words every match of the pattern above holds: most texts have none and skip it.
_KEY_CONTEXT_WORDS = CueWords(
    "key|token|secret|id|cred|otp|2fa|mfa|seed|hmac|salt|signature|密钥|秘钥|令牌|凭证"
)
_HASH_CONTEXT = re.compile(
    r"(?i)\b(?:commit|sha(?:1|256|512)?|hash|checksum|digest|md5|rev(?:ision)?|fingerprint)\b"
)
_CONTEXT_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_ENTROPY_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])")

# When spans collide, the more specific reading names the finding.
_RANK = {
    _K.HIGH_ENTROPY: 0,
    _K.GENERIC_API_KEY: 1,
    _K.PASSWORD: 1,
    _K.PIN: 1,
    _K.NATIONAL_ID: 1,
    _K.PAYMENT_CARD: 2,
    _K.IBAN: 3,
    _K.CN_RESIDENT_ID: 3,
    _K.US_SSN: 3,
    _K.VENDOR_TOKEN: 4,
}


def _vendor(text: str) -> Iterator[tuple[SecretKind, int, int]]:
    if "T3BlbkFJ" in text or _ANY_VENDOR.search(text):
        yield from _vendor_patterns(text)
    if _AWS_WORDS.may_occur(text) and _AWS_CONTEXT.search(text):
        for m in _AWS_SECRET.finditer(text):
            token = m.group()
            # Both cases plus a digit or slash: a 40-hex git SHA has no upper case.
            if not token.islower() and not token.isupper() and not token.isalpha():
                yield _K.AWS_SECRET_KEY, m.start(), m.end()


def _vendor_patterns(text: str) -> Iterator[tuple[SecretKind, int, int]]:
    for kind, pattern, group, extend in _VENDOR:
        if pattern in _OPENAI_LEGACY and "T3BlbkFJ" not in text:
            continue  # its leading [..]* is quadratic on "sk-sk-sk-…"; the marker is required
        for m in pattern.finditer(text):
            if m.group(group) is None:
                continue
            start, end = m.span(group)
            if start > 0 and text[start - 1].isalnum() and text[start - 1].isascii():
                continue  # inside a longer word, not a token of this shape
            while extend and end < len(text) and _TOKEN_CHAR.match(text[end]):
                end += 1
            yield kind, start, end


def _jwt_header_has_alg(token: str) -> bool:
    head = token.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (ValueError, binascii.Error):
        return False
    return isinstance(decoded, dict) and "alg" in decoded


def _jwts(text: str) -> Iterator[tuple[SecretKind, int, int]]:
    if "eyJ" not in text:
        return  # the pattern's fixed start; the scan would try every position
    for m in _JWT.finditer(text):
        if _jwt_header_has_alg(m.group()) and JwtTokenDetector.is_formally_valid(m.group()):
            yield _K.JWT, m.start(), m.end()


# All of detect-secrets' key markers in one scan, skipped like _ANY_VENDOR.
_ANY_PEM = re.compile("|".join(map(_scoped, PrivateKeyDetector.denylist)))


def _private_keys(text: str) -> Iterator[tuple[SecretKind, int, int]]:
    if not _ANY_PEM.search(text):
        return
    for pattern in PrivateKeyDetector.denylist:
        for m in pattern.finditer(text):
            start = text.rfind("-----", max(0, m.start() - 6), m.start())
            start = m.start() if start < 0 else start
            # Without an END line the rest of the message is the key body: redact all of it.
            end_m = _PEM_END.search(text, m.end())
            yield _K.PRIVATE_KEY, start, end_m.end() if end_m else len(text)


def _mixed(token: str) -> bool:
    return (
        sum(c.isupper() for c in token) >= 2
        and sum(c.islower() for c in token) >= 2
        and sum(c.isdigit() for c in token) >= 2
    )


_RUN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^A-Za-z0-9]+")


def _looks_random(token: str) -> bool:
    """Random keys switch character class every 1-2 chars; CamelCase names and slugs do not."""
    counts = Counter(token)
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    runs = len(_RUN.findall(token))
    return entropy >= 3.5 and runs / len(token) >= 0.35


def _overlap_test(taken: list[tuple[SecretKind, int, int]]) -> Callable[[int, int], bool]:
    """``(start, end) -> overlaps a taken span``, in log time (texts may hold many spans)."""
    spans = sorted((s, e) for _, s, e in taken)
    starts = [s for s, _ in spans]
    ends_so_far = list(accumulate((e for _, e in spans), max))

    def overlaps(start: int, end: int) -> bool:
        i = bisect_left(starts, end)
        return bool(i) and ends_so_far[i - 1] > start

    return overlaps


def _high_entropy(
    text: str, taken: list[tuple[SecretKind, int, int]]
) -> Iterator[tuple[SecretKind, int, int]]:
    overlaps: Callable[[int, int], bool] | None = None  # at the first token: most have none
    for m in _ENTROPY_TOKEN.finditer(text):
        overlaps = overlaps or _overlap_test(taken)
        if overlaps(m.start(), m.end()):
            continue  # already named by a more specific layer ("TOKEN=ghp_…")
        lo = max(0, m.start() - 2048)  # no URL is longer; keeps long texts linear
        cut = max(text.rfind(" ", lo, m.start()), text.rfind("\n", lo, m.start()), lo - 1)
        if "://" in text[cut + 1 : m.start()]:
            continue  # a URL path (document or video id); URL credentials are layer 1 and 3
        token = m.group().rstrip("=")
        if len(token) >= 20 and _mixed(token) and _looks_random(token):
            yield _K.HIGH_ENTROPY, m.start(), m.end()


def _context_entropy(
    text: str, taken: list[tuple[SecretKind, int, int]]
) -> Iterator[tuple[SecretKind, int, int]]:
    """Tokens random enough to be keys, with a key word shortly before them. Without the
    word, a 32-hex string is as likely a commit or a checksum; with it, it is the key."""
    # The token scan is the cheaper of the two tests; both must find something.
    if not _CONTEXT_TOKEN.search(text) or not _KEY_CONTEXT_WORDS.may_occur(text):
        return
    if not _KEY_CONTEXT.search(text):
        return
    overlaps = _overlap_test(taken)
    for m in _CONTEXT_TOKEN.finditer(text):
        if overlaps(m.start(), m.end()):
            continue
        before = text[max(0, m.start() - 40) : m.start()]
        if not _KEY_CONTEXT.search(before) or "://" in before.rsplit(" ", 1)[-1]:
            continue
        if _HASH_CONTEXT.search(before):
            continue  # "the sha256 of the key file is …", "key changes in commit …"
        token = m.group().rstrip("=")
        classes = sum(
            (any(c.isupper() for c in token), any(c.islower() for c in token),
             any(c.isdigit() for c in token))
        )  # fmt: skip
        if classes >= 2 and secret_catalogue.shannon_entropy(token) >= 3.0:
            yield _K.HIGH_ENTROPY, m.start(), m.end()


_CATALOGUE_KIND = {
    "generic-api-key": _K.GENERIC_API_KEY,
    "private-key": _K.PRIVATE_KEY,
    "jwt": _K.JWT,
    "jwt-base64": _K.JWT,
}


_UUID = re.compile(r"[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}")


def _catalogue(text: str) -> Iterator[tuple[SecretKind, int, int]]:
    uuids: list[tuple[int, int]] | None = None  # at the first finding: most texts have none
    for rule_id, start, end in secret_catalogue.find_catalogued(text):
        if uuids is None:
            uuids = [m.span() for m in _UUID.finditer(text)] if "-" in text else []
        if any(u_start < start and end <= u_end for u_start, u_end in uuids):
            continue  # a prefix rule ("EAAA…") firing on the inner groups of a UUID
        yield _CATALOGUE_KIND.get(rule_id, _K.VENDOR_TOKEN), start, end


def _layers_2_and_3(text: str) -> Iterator[tuple[SecretKind, int, int]]:
    for finder in (
        secret_numbers.find_cards,
        secret_numbers.find_ibans,
        secret_numbers.find_national_ids,
        secret_phrases.find_phrase_secrets,
        secret_spoken.find_spoken_secrets,
    ):
        for kind, start, end in finder(text):
            yield SecretKind(kind), start, end


def _resolve(raw: list[tuple[SecretKind, int, int]]) -> list[tuple[SecretKind, int, int]]:
    """Drop findings inside a larger one and, for one span, keep the most specific kind."""
    best: dict[tuple[int, int], SecretKind] = {}
    for kind, start, end in raw:
        held = best.get((start, end))
        if held is None or _RANK.get(kind, 9) > _RANK.get(held, 9):
            best[(start, end)] = kind
    kept: list[tuple[SecretKind, int, int]] = []
    reach = -1  # furthest end of a kept span; all kept spans start at or before this one
    for start, end in sorted(best, key=lambda s: (s[0], -s[1])):
        if end <= reach:
            continue
        kept.append((best[(start, end)], start, end))
        reach = end
    return kept


_MASKED = "*•· \t\n/-:.,"


@per_batch  # the gate asks again for each check and proposal
def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret in ``text``, ordered by start, offsets into ``text`` as given.

    Never raises on any string input and never copies the secret anywhere.
    """
    folded = fold(text, Level.SCRIPT)
    t = folded.text
    raw = [*_vendor(t), *_jwts(t), *_private_keys(t), *_catalogue(t), *_layers_2_and_3(t)]
    raw += _high_entropy(t, raw)
    raw += _context_entropy(t, raw)
    found = []
    # A run of mask characters is what a secret became, not a secret (masking is stable).
    live = [r for r in raw if r[2] > r[1] and t[r[1] : r[2]].strip(_MASKED)]
    for kind, start, end in _resolve(live):
        orig_start, orig_end = folded.span(start, end)
        found.append(SecretFinding(kind, orig_start, orig_end))
    return found


def contains_secret(text: str) -> bool:
    """True when :func:`find_secrets` finds anything in ``text``."""
    return bool(find_secrets(text))


def secret_kinds(text: str) -> list[str]:
    """The sorted, unique kinds found in ``text``: safe to put in reason codes."""
    return sorted({str(f.kind) for f in find_secrets(text)})

"""Masking by shape (issue 21, items 2-4), one generated family per mechanism. Nothing here
is an example someone wrote down: tokens, ids, splits, encodings and DSNs are drawn at
random, and the harmless families must come back unmasked."""

from __future__ import annotations

import base64
import doctest
import itertools
import re
import string
import unicodedata
from types import ModuleType
from urllib.parse import quote

import wordfreq
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from mnemonic import Mnemonic

from memwarden_shared.detect import secret_cues, secret_ids, secret_shapes
from memwarden_shared.detect.secret_cues import AMBIGUOUS, CHINESE, ENGLISH, lexicon
from memwarden_shared.detect.secret_mask import MASK, mask_secrets, mask_session

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

EN_WORDS = ["please", "note", "that", "we", "moved", "the", "meeting", "and", "so", "it", "is"]
ZH_WORDS = ["请", "注意", "我们", "周二", "开会", "然后", "这个", "就是", "好的"]
SYMBOLS = "!@#$%^&*+=?~"


def _unmasked(secret: str, text: str) -> bool:
    """Whether any run of 3+ characters of ``secret`` (or the whole of a shorter one)
    survives in ``text``."""
    if len(secret) < 3:
        return secret in text
    return any(
        secret[i : i + 3] in text for i in range(len(secret) - 2) if secret[i : i + 3].strip()
    )


@st.composite
def sentences(draw: st.DrawFn, middle: str) -> str:
    """``middle`` inside a random English or Chinese sentence."""
    if draw(st.booleans()):
        before = " ".join(draw(st.lists(st.sampled_from(EN_WORDS), max_size=5)))
        after = " ".join(draw(st.lists(st.sampled_from(EN_WORDS), max_size=5)))
        return f"{before} {middle} {after}".strip() + draw(st.sampled_from(["", ".", "!"]))
    before = "".join(draw(st.lists(st.sampled_from(ZH_WORDS), max_size=4)))
    after = "".join(draw(st.lists(st.sampled_from(ZH_WORDS), max_size=4)))
    return f"{before}{middle}{after}" + draw(st.sampled_from(["", "。", "！"]))


@st.composite
def passwords(draw: st.DrawFn) -> str:
    """Credential-shaped tokens: 8-24 characters holding upper and lower case, a digit and
    a password symbol that is not at either end."""
    body = draw(
        st.lists(st.sampled_from(string.ascii_letters + string.digits), min_size=5, max_size=20)
    )
    must = [
        draw(st.sampled_from(string.ascii_uppercase)),
        draw(st.sampled_from(string.ascii_lowercase)),
        draw(st.sampled_from(string.digits)),
    ]
    chars = draw(st.permutations(body + must))
    # not "=": "name=value" is an assignment, judged by its own rule (a plain value such
    # as "A0" after a plain name is no credential; see the assignment properties above)
    symbol = draw(st.sampled_from(SYMBOLS.replace("=", "")))
    at = draw(st.integers(1, len(chars) - 1))
    return "".join(chars[:at]) + symbol + "".join(chars[at:])


@st.composite
def random_runs(draw: st.DrawFn) -> str:
    """Long hex runs, and long base62 runs holding all three classes."""
    if draw(st.booleans()):
        hexes = draw(st.text("0123456789abcdef", min_size=16, max_size=64))
        hexes += draw(st.sampled_from("abcdef")) + draw(st.sampled_from("0123456789"))
        return hexes
    pool = string.ascii_letters + string.digits
    run = draw(st.text(pool, min_size=24, max_size=64))
    return run + "aZ7"


# Attribute and option names: lower-case identifiers, none naming a credential
ATTRIBUTE_NAMES = st.from_regex(r"[a-z]{3,9}(?:[._-][a-z]{3,9})?", fullmatch=True).filter(
    lambda n: not re.search(r"pass|pwd|secret|token|key|auth|cred|private|salt|dsn|conn", n)
)
PLAIN_VALUES = st.one_of(
    st.integers(0, 99999).map(str),
    st.from_regex(r"[a-z]{2,10}", fullmatch=True),
    st.from_regex(r"#[0-9a-f]{6}", fullmatch=True),
)


@PROPERTY
@given(ATTRIBUTE_NAMES, ATTRIBUTE_NAMES, PLAIN_VALUES, st.booleans())
def test_shape__an_inline_assignment_of_a_plain_value_is_no_credential(
    name: str, inner: str, value: str, nested: bool
) -> None:
    token = f'{name}="{inner}={value}"' if nested else f"{name}={value}"
    text = f"<p {token}> and then we moved the meeting"
    assert mask_secrets(text).text == text


@PROPERTY
@given(ATTRIBUTE_NAMES, passwords())
def test_shape__a_password_assigned_to_a_plain_name_is_masked(name: str, password: str) -> None:
    text = f"please note {name}={password} today"
    assert password not in mask_secrets(text).text


# ------------------------------------------------------------------ 1. shapes in sentences


@PROPERTY
@given(st.one_of(passwords(), random_runs()).flatmap(lambda t: st.tuples(st.just(t), sentences(t))))
def test_shape__random_credential_tokens_in_random_sentences_are_masked(
    pair: tuple[str, str],
) -> None:
    token, text = pair
    masked = mask_secrets(text)
    assert token not in masked.text and len(masked.text) == len(text)


@st.composite
def digit_secrets(draw: st.DrawFn) -> str:
    """Six to twelve digits that are neither a date, a year run, an IPv4 address, a round
    number nor a mobile number, with one random separator joining random groups."""
    digits = draw(st.text("0123456789", min_size=6, max_size=12))
    assume(not secret_shapes._is_round(digits) and not re.fullmatch(r"1[3-9]\d{9}", digits))
    sep = draw(st.sampled_from(["", " ", ".", "-"]))
    cuts = sorted(draw(st.sets(st.integers(1, len(digits) - 1), max_size=3)))
    groups = [digits[a:b] for a, b in zip([0, *cuts], [*cuts, len(digits)], strict=True)]
    run = sep.join(groups)
    groups = secret_shapes._SEPARATOR.split(run)
    assume(not secret_shapes._is_date(groups) and not secret_shapes._is_ipv4(run, groups))
    assume(not (sep == "." and len(groups) == 2))  # a decimal number
    return run


@PROPERTY
@given(digit_secrets(), st.sampled_from(["my", "我的", "the", "", "note"]))
def test_digits__six_or_more_joined_by_separators_are_masked(run: str, lead: str) -> None:
    text = f"{lead} {run} ok"
    assert re.sub(r"\D", "", run) not in re.sub(r"\D", "", mask_secrets(text).text)


# ------------------------------------------------------------------ 2. cues, all spellings


def _forms(kind: str) -> list[str]:
    return sorted(lexicon()[kind])


@PROPERTY
@given(
    st.sampled_from(sorted(ENGLISH)).flatmap(lambda k: st.sampled_from(_forms(k))),
    st.text("0123456789", min_size=3, max_size=8),
    st.sampled_from([" is ", ": ", "是", "：", " = ", " "]),
)
def test_cue__every_form_of_every_concept_masks_the_number_after_it(
    cue: str, number: str, connector: str
) -> None:
    if cue in AMBIGUOUS and connector == " ":
        cue = cue.upper()  # an everyday word is a cue in capitals or before a value
    text = f"my {cue}{connector}{number} thanks"
    assert number not in mask_secrets(text).text


@PROPERTY
@given(
    st.sampled_from(sorted(CHINESE)).flatmap(lambda k: st.sampled_from(CHINESE[k])),
    st.sampled_from(["s2t", "s2hk", "pinyin", "simplified"]),
    st.text("0123456789", min_size=4, max_size=8),
)
def test_cue__chinese_concepts_in_traditional_and_pinyin_mask_the_number(
    word: str, spelling: str, number: str
) -> None:
    from opencc import OpenCC
    from pypinyin import lazy_pinyin

    if spelling == "pinyin":
        cue = "".join(lazy_pinyin(word))
    elif spelling == "simplified":
        cue = word
    else:
        cue = OpenCC(spelling).convert(word)
    assert cue in lexicon()[next(k for k, ws in CHINESE.items() if word in ws)]
    assert number not in mask_secrets(f"我的{cue} {number}").text


# ------------------------------------------------------------------ 3. catalogue ids


def _examples(module: ModuleType) -> list[str]:
    """The valid numbers of the module's own doctests."""
    found = []
    for example in doctest.DocTestParser().get_examples(module.__doc__ or ""):
        m = re.fullmatch(r"(?:validate|is_valid)\('([^']+)'\)\n", example.source)
        if m and not example.want.startswith(("Traceback", "False")):
            found.append(m.group(1))
    return [e for e in found if module.is_valid(e)]


def _generatable() -> list[tuple[ModuleType, str]]:
    out = []
    for module in secret_ids.chosen_modules():
        calc = getattr(module, "calc_check_digit", None) or getattr(
            module, "calc_check_digits", None
        )
        for example in _examples(module)[:1]:
            if calc is not None:
                out.append((module, module.compact(example)))
    return out


GENERATABLE = _generatable()


@st.composite
def stdnum_ids(draw: st.DrawFn) -> tuple[ModuleType, str]:
    """A random valid number of a chosen stdnum module: its doctest example with the digits
    before the check part redrawn, the check part computed by the module's own function."""
    module, example = draw(st.sampled_from(GENERATABLE))
    calc = getattr(module, "calc_check_digit", None) or module.calc_check_digits
    for width in (1, 2):
        body = "".join(
            draw(st.sampled_from(string.digits)) if c.isdigit() and draw(st.booleans()) else c
            for c in example[:-width]
        )
        try:
            number = body + str(calc(body))
            if module.is_valid(number):
                return module, number
        except Exception:
            continue
    assume(False)
    raise AssertionError


def test_catalogue__the_id_family_covers_many_countries() -> None:
    countries = {m.__name__.split(".")[1] for m, _ in GENERATABLE if m.__name__.count(".") == 2}
    assert len(countries) >= 15


@PROPERTY
@given(stdnum_ids(), st.sampled_from(["my id is", "我的证件号码是", "passport", "tax number:"]))
def test_catalogue__random_valid_ids_after_a_cue_are_masked(
    pair: tuple[ModuleType, str], cue: str
) -> None:
    _, number = pair
    masked = mask_secrets(f"{cue} {number} thanks").text
    assert not _unmasked(number, masked.replace(" ", ""))


@PROPERTY
@given(stdnum_ids())
def test_catalogue__random_valid_ids_without_a_cue_are_masked_or_harmless_by_rule(
    pair: tuple[ModuleType, str],
) -> None:
    _, number = pair
    text = f"see {number} again"
    masked = mask_secrets(text)
    if number.isdigit() and secret_shapes.harmless_digit_run(text, 4, 4 + len(number)):
        return  # a documented exemption (a date, a phone number): cue-less, not masked
    assert masked.spans and not _unmasked(number, masked.text)


@PROPERTY
@given(st.sampled_from([12, 15, 18, 21, 24]).flatmap(
    lambda n: st.lists(st.sampled_from(Mnemonic("english").wordlist), min_size=n, max_size=n)
))  # fmt: skip
def test_catalogue__bip39_runs_of_twelve_to_twenty_four_words_are_masked(words: list[str]) -> None:
    phrase = " ".join(words)
    masked = mask_secrets(f"backup: {phrase}").text
    assert all(w not in masked.split() for w in words)


SEED_CUES = ["seed words", "recovery phrase", "my wallet mnemonic", "助记词", "backup phrase"]


@PROPERTY
@given(
    st.sampled_from(SEED_CUES),
    st.lists(st.sampled_from(Mnemonic("english").wordlist), min_size=12, max_size=12),
    st.lists(st.integers(3, 9), min_size=1, max_size=3, unique=True),
    st.sampled_from(["", "part two: ", "and ", "- ", "后面是 "]),
)
def test_catalogue__a_seed_phrase_cut_over_turns_after_a_cue_is_masked(
    cue: str, words: list[str], cuts: list[int], lead: str
) -> None:
    bounds = [0, *sorted(cuts), 12]
    pieces = [" ".join(words[a:b]) for a, b in itertools.pairwise(bounds)]
    turns = [f"{cue}: {pieces[0]}", *(lead + p for p in pieces[1:])]
    for piece, m in zip(pieces, mask_session(turns), strict=True):
        assert piece not in m.text, m.text
        assert not set(piece.split()) & set(m.text.split()) - set(lead.split()), m.text


@PROPERTY
@given(st.lists(st.sampled_from(Mnemonic("english").wordlist), min_size=6, max_size=11))
def test_catalogue__six_or_more_rare_bip39_words_in_a_row_are_masked_without_a_cue(
    words: list[str],
) -> None:
    everyday = set(wordfreq.top_n_list("en", 300))
    assume(sum(w in everyday for w in words) <= 1)
    masked = mask_secrets(" ".join(words)).text
    assert all(w not in masked.split() for w in words), masked


@PROPERTY
@given(st.data())
def test_catalogue__a_run_with_two_everyday_words_is_no_seed_piece_without_a_cue(
    data: st.DataObject,
) -> None:
    # an ordinary clause of BIP-39 words uses everyday ones ("that", "you", "like"); a
    # random draw rarely does: two of them in a run of up to eleven keep it unmasked
    bip = Mnemonic("english").wordlist
    everyday = set(wordfreq.top_n_list("en", 300))
    common = [w for w in bip if w in everyday]
    rare = [w for w in bip if w not in everyday]
    words = data.draw(st.lists(st.sampled_from(rare), min_size=4, max_size=9))
    for _ in range(2):
        words.insert(data.draw(st.integers(0, len(words))), data.draw(st.sampled_from(common)))
    text = "Honestly, " + " ".join(words) + "."
    assert mask_secrets(text).text == text


@PROPERTY
@given(st.data())
def test_cue__pinyin_spaced_any_way_still_cues(data: st.DataObject) -> None:
    # every Chinese cue of the lexicon, its toneless syllables grouped at random ("yinhangka
    # mima", "yin hangka mi ma"), then a random password
    from pypinyin import lazy_pinyin

    word = data.draw(st.sampled_from(sorted(w for ws in CHINESE.values() for w in ws)))
    syllables = lazy_pinyin(word)
    assume(all(s.isascii() and s.isalpha() for s in syllables))
    gaps = data.draw(st.lists(st.sampled_from(["", " "]), min_size=len(syllables) - 1,
                              max_size=len(syllables) - 1))  # fmt: skip
    assume("" in gaps and " " in gaps)  # solid and fully spaced are the lexicon's own forms
    cue = syllables[0] + "".join(g + s for g, s in zip(gaps, syllables[1:], strict=True))
    # a weak password (a word and four digits): no shape gives it away, only the cue
    word = data.draw(st.sampled_from(wordfreq.top_n_list("en", 3000)).filter(str.isalpha))
    secret = word + data.draw(st.text("0123456789", min_size=4, max_size=4))
    masked = mask_secrets(f"wo de {cue} shi {secret}, bang wo ji zhu").text
    assert secret not in masked, masked


@PROPERTY
@given(
    st.sampled_from(["UTC", "GMT", "utc", "gmt"]),
    st.sampled_from(["+", "-", "\u2212"]),
    st.integers(0, 14),
    st.sampled_from(["", ":00", ":30", ":45", "00", "30"]),
    st.sampled_from(["My timezone is {}.", "请把我的时区记成 {}。", "{}", "I work on {} hours"]),
)
def test_harmless__a_utc_offset_is_a_time_zone_not_a_secret(
    base: str, sign: str, hours: int, minutes: str, frame: str
) -> None:
    offset = f"{base}{sign}{hours:02d}{minutes}" if minutes else f"{base}{sign}{hours}"
    text = frame.format(offset)
    assert mask_secrets(text).text == text
    assert offset not in mask_session(["my PIN is", offset])[1].text  # a cue still masks it


@PROPERTY
@given(
    st.sampled_from([3, 4, 6, 8]).flatmap(lambda n: st.text("0123456789abcdefABCDEF", min_size=n,
                                                            max_size=n)),
    st.sampled_from(["My accent colour is #{}.", "<p style=#{}> and then", "主题色用 #{}。"]),
)  # fmt: skip
def test_harmless__a_hex_colour_is_no_id(hex_digits: str, frame: str) -> None:
    text = frame.format(hex_digits)
    assert mask_secrets(text).text == text


# ------------------------------------------------------------------ 4. encodings


@st.composite
def encoded(draw: st.DrawFn) -> tuple[str, str]:
    password = draw(passwords())
    how = draw(st.sampled_from(["b64", "b64url", "hex", "percent"]))
    raw = password.encode()
    if how == "b64":
        return password, base64.b64encode(raw).decode()
    if how == "b64url":
        return password, base64.urlsafe_b64encode(raw).decode().rstrip("=")
    if how == "hex":
        return password, raw.hex()
    assume(quote(password, safe="") != password)
    return password, quote(password, safe="")


@PROPERTY
@given(encoded().flatmap(lambda p: st.tuples(st.just(p[1]), sentences(p[1]))))
def test_encoded__random_passwords_in_base64_hex_or_percent_are_masked(
    pair: tuple[str, str],
) -> None:
    token, text = pair
    assert token not in mask_secrets(text).text


# ------------------------------------------------------------------ 5. DSNs


@PROPERTY
@given(
    st.from_regex(r"[a-z][a-z0-9+.-]{1,12}", fullmatch=True),
    st.from_regex(r"(?:[A-Za-z][A-Za-z0-9_]{0,10})?", fullmatch=True),  # "redis://:pw@…"
    st.text(string.ascii_letters + string.digits + "!$&'()*+,;=-._~#?", min_size=1, max_size=24),
    st.from_regex(r"[a-z][a-z0-9-]{0,10}(?:\.[a-z]{2,5}){0,2}", fullmatch=True),
)
def test_dsn__the_password_of_any_scheme_is_masked(
    scheme: str, user: str, password: str, host: str
) -> None:
    # "$name" is a variable a deployment fills in (docker compose, shell), a documented
    # exemption of every scan, not a password
    assume(not re.fullmatch(r"\$[A-Za-z_]\w*", password))
    url = f"{scheme}://{user}:{password}@{host}:5432/db"
    text = f"connect with {url} please"
    masked = mask_secrets(text).text
    start = text.index("://") + 3 + len(user) + 1
    assert set(masked[start : start + len(password)]) == {MASK}


# ------------------------------------------------------------------ 6. splits over turns

CUE_TURNS = [
    "my password is",
    "the PIN is in the next messages",
    "验证码是",
    "支付密碼",
    "mima shi",
]


@st.composite
def split_secret(draw: st.DrawFn) -> list[str]:
    """A secret cut in 2-3 random pieces, one turn each, with random lead-ins, digits
    spelled out one by one or not; after a cue turn (English, Chinese, traditional,
    pinyin), or after none when the first piece is four digits or more that are not
    harmless alone (no marker word)."""
    cue = draw(st.sampled_from([*CUE_TURNS, None]))
    if cue is None:
        secret = draw(st.text("0123456789", min_size=8, max_size=12))
        # a run that is harmless whole (a round number, a date) is a documented exemption
        assume(not secret_shapes.harmless_digit_run(secret, 0, len(secret)))
        cuts = sorted(draw(st.sets(st.integers(4, len(secret) - 1), min_size=1, max_size=2)))
    else:
        secret = draw(st.one_of(passwords(), st.text("0123456789", min_size=6, max_size=10)))
        cuts = sorted(draw(st.sets(st.integers(1, len(secret) - 1), min_size=1, max_size=2)))
    pieces = [secret[a:b] for a, b in zip([0, *cuts], [*cuts, len(secret)], strict=True)]
    if cue is None:
        # with no cue, the first piece is stored before the next one arrives, so it must
        # read as a fragment on its own: a round number alone is an answer ("1000")
        assume(not secret_shapes.harmless_digit_run(pieces[0], 0, len(pieces[0])))
    lead = st.sampled_from(["", "and ", "then ", "后面是", "rest: ", "- "])
    turns = [
        draw(lead) + (" ".join(p) if p.isdigit() and draw(st.booleans()) else p) for p in pieces
    ]
    return ([cue] if cue else []) + turns


@PROPERTY
@given(split_secret())
def test_window__every_piece_of_a_secret_split_over_turns_is_masked(turns: list[str]) -> None:
    first_piece = 1 if turns[0] in CUE_TURNS else 0
    for m in mask_session(turns)[first_piece:]:
        assert set(m.text.replace(" ", "")) == {MASK}, m.text


NATO = [
    "alfa",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
    "kilo",
    "lima",
    "mike",
]


@PROPERTY
@given(
    st.lists(st.sampled_from([*NATO, "one", "two", "seven", "nine"]), min_size=2, max_size=6),
    st.lists(st.sampled_from("一二三四五六七八九幺两壹贰叁"), min_size=2, max_size=6),
    st.sampled_from(["my wifi password is", "the code is", "开门密码"]),
)
def test_window__spelled_letters_and_chinese_digit_words_after_a_cue_are_masked(
    spelled: list[str], numerals: list[str], cue: str
) -> None:
    masked = mask_session(
        [cue, " ".join(spelled), "".join(numerals), "thanks, that is all for today"]
    )
    assert set(masked[1].text.replace(" ", "")) == {MASK}
    assert set(masked[2].text) == {MASK}
    assert masked[3].text == "thanks, that is all for today"


_SPELLING_ANNOUNCED = [
    "spelling it out", "spell it out", "letter by letter", "one character at a time",
    "一个字母一个字母", "逐个字母",
]  # fmt: skip


@PROPERTY
@given(
    st.sampled_from(_SPELLING_ANNOUNCED),
    st.lists(st.sampled_from(string.ascii_letters + string.digits), min_size=4, max_size=12),
    st.integers(1, 3),
    st.sampled_from(["so you get it right:", "here goes:", "念给你：", ""]),
)
def test_window__a_spelling_announced_masks_the_units_over_the_next_turns(
    announce: str, units: list[str], turns: int, tail: str
) -> None:
    # announcing a spelling is a cue: the units that follow, cut over 1-3 turns, are masked
    cut = [units[i::turns] for i in range(turns)]
    texts = [f"ok, {announce} {tail} {' '.join(cut[0])}", *(" ".join(c) for c in cut[1:])]
    masked = mask_session([*texts, "thanks, that is all for today"])
    for piece, out in zip(cut, masked, strict=False):
        spelled = out.text[-len(" ".join(piece)) :]  # each turn ends with its units
        assert not any(c.isalnum() for c in spelled), (texts, out.text)
    assert masked[-1].text == "thanks, that is all for today"


# ------------------------------------------------------------------ 7. harmless families


@st.composite
def harmless(draw: st.DrawFn) -> str:
    """Dates, clock times, years, versions, small counts, round and priced quantities,
    order numbers named as such, phone numbers written with their country code."""
    y = draw(st.integers(1950, 2090))
    m = draw(st.integers(1, 12))
    d = draw(st.integers(1, 28))
    h, mi = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    pieces = [
        f"{y}-{m:02d}-{d:02d}", f"{d:02d}.{m:02d}.{y}", f"{m}/{d}/{y}", f"{y}年{m}月{d}日",
        f"{y}{m:02d}{d:02d}", f"{h:02d}:{mi:02d}", f"{y}-{m:02d}-{d:02d} {h:02d}:{mi:02d}",
        str(y), f"{y}-{y + draw(st.integers(1, 9))}",
        f"v{draw(st.integers(0, 40))}.{draw(st.integers(0, 99))}.{draw(st.integers(0, 999))}",
        f"version {draw(st.integers(0, 200))}.{draw(st.integers(0, 9))}."
        f"{draw(st.integers(0, 9999))}",
        str(draw(st.integers(0, 99999))), f"{draw(st.integers(1, 999))}000000",
        f"${draw(st.integers(1000, 9999999))}", f"{draw(st.integers(100000, 9999999))} users",
        f"order #{draw(st.integers(10**5, 10**10))}", f"订单号{draw(st.integers(10**5, 10**10))}",
        f"+44 20 7946 {draw(st.integers(0, 9999)):04d}",
        f"+1 415 555 {draw(st.integers(0, 9999)):04d}",
        f"{draw(st.integers(1, 999))}.{draw(st.integers(1000, 999999))}",
    ]  # fmt: skip
    return draw(st.sampled_from(pieces))


@st.composite
def ordinary_sentences(draw: st.DrawFn, middle: str) -> str:
    """``middle`` in an English or Chinese sentence of three words or more around it (two
    Chinese characters count as a word, as in secret_window)."""
    if draw(st.booleans()):
        words = draw(st.lists(st.sampled_from(EN_WORDS), min_size=3, max_size=8))
        at = draw(st.integers(0, len(words)))
        return " ".join([*words[:at], middle, *words[at:]]) + draw(st.sampled_from(["", "."]))
    words = draw(
        st.lists(st.sampled_from([w for w in ZH_WORDS if len(w) > 1]), min_size=3, max_size=6)
    )
    at = draw(st.integers(0, len(words)))
    return "".join([*words[:at], middle, *words[at:]]) + draw(st.sampled_from(["", "。"]))


@PROPERTY
@given(harmless().flatmap(ordinary_sentences))
def test_harmless__dates_times_years_versions_counts_are_not_masked(text: str) -> None:
    masked = mask_secrets(text)
    assert masked.text == text and masked.spans == ()


@PROPERTY
@given(
    st.one_of(
        st.integers(0, 999).map(str),
        st.integers(1950, 2090).map(str),
        st.builds("{:02d}:{:02d}".format, st.integers(0, 23), st.integers(0, 59)),
        st.builds("v{}.{}".format, st.integers(0, 30), st.integers(0, 99)),
        st.builds("{}-{:02d}-{:02d}".format, st.integers(1950, 2090), st.integers(1, 12),
                  st.integers(1, 28)),
    )
)  # fmt: skip
def test_harmless__a_turn_that_is_only_a_small_count_year_time_version_or_date_is_kept(
    piece: str,
) -> None:
    # a bare number of four digits or more is a fragment (secret_window); these are not
    assert mask_session(["I prefer pnpm.", piece])[1].text == piece


@PROPERTY
@given(harmless())
def test_harmless__an_ordinary_turn_with_them_closes_no_window_and_masks_nothing(
    piece: str,
) -> None:
    turns = ["I prefer pnpm.", f"the release went out {piece} as planned"]
    assert [m.text for m in mask_session(turns)] == turns


@st.composite
def named_tokens(draw: st.DrawFn) -> str:
    """Tokens that say what they are: UUIDs, short commit hashes, ISO 8601 timestamps, MAC
    and IP addresses, CamelCase code names with a small number, template placeholders."""
    hexes = st.text("0123456789abcdef", min_size=1)
    uuid = "-".join(draw(st.text("0123456789abcdef", min_size=n, max_size=n))
                    for n in (8, 4, 4, 4, 12))  # fmt: skip
    # a short hash, unless a catalogue validates it as an id ("a00000000a" is an Albanian
    # NIPT): a valid id is masked whatever it sits in, by design (fail closed)
    short = draw(hexes.filter(lambda h: 7 <= len(h) <= 12 and sum(c.isalpha() for c in h) >= 2
                              and not h[-1].isdigit()
                              and secret_ids.validated_kind(h) is None))  # fmt: skip
    stamp = (f"{draw(st.integers(1990, 2090))}-{draw(st.integers(1, 12)):02d}-"
             f"{draw(st.integers(1, 28)):02d}T{draw(st.integers(0, 23)):02d}:"
             f"{draw(st.integers(0, 59)):02d}:{draw(st.integers(0, 59)):02d}Z")  # fmt: skip
    mac = ":".join(draw(st.text("0123456789abcdef", min_size=2, max_size=2)) for _ in range(6))
    ip = ".".join(str(draw(st.integers(0, 255))) for _ in range(4))
    camel = (
        draw(st.sampled_from(["OAuth", "Base", "Http", "Utf", "Sha"]))
        + str(draw(st.integers(1, 99)))
        + draw(st.sampled_from(["Client", "Encoder", "TokenRefresher", "Parser"]))
    )
    var = draw(st.from_regex(r"[A-Z][A-Z_]{2,12}", fullmatch=True))
    template = draw(st.sampled_from([f"${{{var}}}", f"<your {var.lower()}>", f"%{var}%"]))
    return draw(st.sampled_from([uuid, short, stamp, mac, ip, camel, template]))


@PROPERTY
@given(named_tokens(), st.sampled_from(["request id", "see", "started at", "device", "class"]))
def test_harmless__named_shapes_are_not_credentials(token: str, lead: str) -> None:
    text = f"{lead} {token} as planned today"
    assert mask_secrets(text).text == text


EN_LENGTH_CUES = ["your password must be at least", "the OTP expires in", "the PIN has"]
ZH_LENGTH_CUES = ["验证码", "密码至少", "支付密码要"]


@PROPERTY
@given(
    st.one_of(
        st.tuples(st.sampled_from(EN_LENGTH_CUES), st.just(" "),
                  st.sampled_from([" characters", " minutes", " digits", " days"])),
        st.tuples(st.sampled_from(ZH_LENGTH_CUES), st.just(""),
                  st.sampled_from(["位", "分钟内有效"])),
    ),
    st.integers(1, 120),
)  # fmt: skip
def test_harmless__a_quantity_after_a_cue_is_its_length_not_the_secret(
    parts: tuple[str, str, str], n: int
) -> None:
    cue, space, unit = parts
    text = f"{cue}{space}{n}{unit}"
    assert mask_secrets(text).text == text


# Words of the language, eight letters or more: the length a base64 run starts at
LONG_WORDS = sorted(w for w in wordfreq.top_n_list("en", 20000) if len(w) >= 8 and w.isalpha())


def test_encoded__no_word_of_the_language_is_read_as_base64() -> None:
    """The whole catalogue, not a sample: a few thousand words, each in a sentence."""
    masked = [w for w in LONG_WORDS if mask_secrets(f"I put {w} first in the review").spans]
    assert masked == []


# Marks of Unicode's General Punctuation block (dashes, curly quotes, bullets) that folding
# keeps; the others fold to ASCII ("…" to "...", "⁇" to "??") and are judged as that
GENERAL_PUNCTUATION = [
    chr(c)
    for c in range(0x2000, 0x2070)
    if unicodedata.category(chr(c)).startswith("P")
    and unicodedata.normalize("NFKC", chr(c)) == chr(c)
]


@PROPERTY
@given(
    st.from_regex(r"[a-z]{1,6}[0-9][a-z]{0,2}", fullmatch=True),
    st.sampled_from(GENERAL_PUNCTUATION),
    st.sampled_from(["我用 {t}{p}好的", "I use {t}{p}and it works", "{p}{t}{p} is fine"]),
)
def test_harmless__a_word_with_a_digit_beside_a_dash_or_ellipsis_is_the_word(
    token: str, mark: str, frame: str
) -> None:
    # a mark between words is no part of a token: "neo4j—" does not mix four classes
    assume(mask_secrets(f"I use {token} daily").spans == ())
    text = frame.format(t=token, p=mark)
    assert mask_secrets(text).spans == (), text


@PROPERTY
@given(st.one_of(passwords(), random_runs()), st.sampled_from(GENERAL_PUNCTUATION))
def test_shape__a_credential_beside_a_dash_or_ellipsis_is_still_masked(
    secret: str, mark: str
) -> None:
    for text in (f"the key is {secret}{mark}ok", f"{mark}{secret}{mark}", f"用{secret}{mark}好"):
        assert not _unmasked(secret, mask_secrets(text).text), text


def _plain_cues(kinds: tuple[str, ...]) -> list[str]:
    words = [w for k in kinds for w in (*ENGLISH[k], *CHINESE[k])]
    return sorted(w for w in words if w not in AMBIGUOUS and len(w) > 2)


def _digit_groups(data: st.DataObject) -> str:
    groups = data.draw(
        st.lists(st.text("0123456789", min_size=4, max_size=4), min_size=2, max_size=4)
    )
    return data.draw(st.sampled_from([" ", "-", ""])).join(groups)


@PROPERTY
@given(
    st.sampled_from(_plain_cues((secret_cues.NATIONAL_ID, secret_cues.ACCOUNT))),
    st.sampled_from([" no. ", " number ", "编号", "号码是 ", " nr "]),
    st.data(),
)
def test_cue__an_order_word_after_an_identity_cue_numbers_a_person(
    cue: str, order_word: str, data: st.DataObject
) -> None:
    # the order-number exemption ("order no. …", "订单编号 …") yields to a lexicon cue near
    run = _digit_groups(data)
    text = f"my {cue}{order_word}{run}, thanks"
    assert not _unmasked(run, mask_secrets(text).text), text


@PROPERTY
@given(
    st.sampled_from(["order no. ", "ticket #", "订单编号 ", "tracking number ", "工单 "]),
    st.integers(10**5, 10**10),
)
def test_harmless__an_order_number_without_an_identity_cue_is_kept(order: str, number: int) -> None:
    text = f"{order}{number} arrived yesterday"
    assert mask_secrets(text).text == text


@PROPERTY
@given(
    st.sampled_from(_plain_cues((secret_cues.PIN, secret_cues.PASSWORD, secret_cues.KEY))),
    st.lists(
        st.from_regex(r"[a-z0-9]{3,6}[-_ ]?[a-z0-9]{3,6}", fullmatch=True).filter(
            lambda t: any(c.isdigit() for c in t) and any(c.isalpha() for c in t)
        ),
        min_size=2,
        max_size=6,
    ),
    st.sampled_from(["keep them safe:", "here they are:", "保存好：", "如下:"]),
)
def test_cue__a_cue_announcing_lines_masks_every_line_of_the_block(
    cue: str, items: list[str], announce: str
) -> None:
    text = f"my {cue}, {announce}\n" + "\n".join(items) + "\n\nthanks, that is all"
    masked = mask_secrets(text).text
    block, _, rest = masked.partition("\n\n")
    lines = block.split("\n")[1:]
    assert len(lines) == len(items) and not any(c.isalnum() for line in lines for c in line), (
        text,
        masked,
    )
    assert rest == "thanks, that is all"  # the block ends at its blank line


@PROPERTY
@given(st.lists(st.from_regex(r"[a-z]{3,8} [a-z]{3,8}", fullmatch=True), min_size=2, max_size=5))
def test_harmless__lines_after_a_colon_without_a_cue_are_kept(items: list[str]) -> None:
    text = "my shopping list for the week:\n" + "\n".join(items)
    assert mask_secrets(text).text == text

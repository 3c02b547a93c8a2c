"""Languages as BCP 47 tags (registry v2, ``preference.language``). Pure apart from the
CLDR name data that ``langcodes`` / ``language-data`` ship.

A language value is stored as ``"<tag> <English name> <Chinese name>"``, e.g.
``"en-GB British English 英式英语"`` or ``"zh Chinese 中文"``: the tag keeps the variant
(British English never becomes English), and both display names are words of the value, so
recall and eval tokens in either language match it. Any surface form names the same tag:
"British English", "英式英语", "en-GB", "English (United Kingdom)".

A *table* (:class:`LanguageTable`) is the registry's list of tags the extractor looks for,
with their surface forms; :func:`resolve` and :func:`tags_mentioned` also know every other
language langcodes can name, so a value outside the table is still accepted and grounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import langcodes
from langcodes import Language
from language_data.registry_parser import parse_registry

from memwarden_shared.text.fold import Level, fold_text

_TAG_HEAD = re.compile(r"^([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)(?:\s|$)")


def valid_tag(tag: str) -> str | None:
    """``tag`` in its standard form ("en-gb" -> "en-GB") when it names a real language."""
    try:
        lang = Language.get(tag, normalize=True)
    except (ValueError, LookupError):
        return None
    if not lang.language or not lang.is_valid() or lang.language in ("und", "zxx", "mis"):
        return None
    return lang.to_tag()


@dataclass(frozen=True)
class Variant:
    """Names CLDR does not give a tag as one phrase ("British English" for en-GB)."""

    en: str
    zh: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class LanguageTable:
    """The registry's languages: tag -> canonical value, and every surface form -> tag."""

    values: dict[str, str]  # tag -> canonical value
    forms: dict[str, list[str]]  # canonical value -> surface forms (folded)
    form_to_tag: dict[str, str]  # folded form -> tag
    variants: Mapping[str, Variant]
    excluded: frozenset[str]  # folded forms that are ordinary words ("indonesia")

    def resolve(self, raw: str) -> str | None:
        """The tag ``raw`` names: a canonical value, a listed form, a tag, or any name
        langcodes finds in English or Chinese; None when it names no language."""
        if not isinstance(raw, str) or not raw.strip():
            return None
        folded = fold_text(raw, Level.SPACE)
        if folded in self.form_to_tag:
            return self.form_to_tag[folded]
        head = _TAG_HEAD.match(raw.strip())
        if head:  # "en-GB British English 英式英语" or a bare tag
            tag = valid_tag(head.group(1))
            rest = raw.strip()[head.end() :].strip()
            if tag is not None and (
                not rest or fold_text(rest, Level.SPACE) == fold_text(self._names(tag), Level.SPACE)
            ):
                return tag
        return _find(raw.strip())

    def canonical(self, raw: str) -> str | None:
        tag = self.resolve(raw)
        return None if tag is None else self.value_of(tag)

    def value_of(self, tag: str) -> str:
        return self.values.get(tag) or f"{tag} {self._names(tag)}"

    def _names(self, tag: str) -> str:
        en, zh = display_names(tag, self.variants)
        return f"{en} {zh}"

    def forms_of(self, tag: str) -> list[str]:
        listed = self.forms.get(self.value_of(tag))
        return listed if listed is not None else _forms(tag, self.variants, (), self.excluded)

    def tags_mentioned(
        self, folded_span: str, extra_tag: str | None = None
    ) -> dict[str, list[int]]:
        """Tags named in ``folded_span`` -> start offsets, longest form first and never
        overlapping, so "british english" names en-GB and not also en."""
        candidates = dict(self.form_to_tag)
        if extra_tag is not None:
            for form in self.forms_of(extra_tag):
                candidates.setdefault(form, extra_tag)
        taken: list[tuple[int, int]] = []
        found: dict[str, list[int]] = {}
        for form in sorted(candidates, key=len, reverse=True):
            if _first_part(form) not in folded_span:
                continue  # every match holds the form's first word as it is: none here
            for m in _form_regex(form).finditer(folded_span):
                if any(m.start() < end and start < m.end() for start, end in taken):
                    continue
                taken.append((m.start(), m.end()))
                found.setdefault(candidates[form], []).append(m.start())
        return found


@lru_cache(maxsize=4096)
def _first_part(form: str) -> str:
    return form.split()[0]


@lru_cache(maxsize=4096)
def _form_regex(form: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(part) for part in form.split())
    left = r"(?<![a-z0-9_])" if form[:1].isascii() and form[:1].isalnum() else ""
    right = r"(?![a-z0-9_])" if form[-1:].isascii() and form[-1:].isalnum() else ""
    return re.compile(left + body + right)


@lru_cache(maxsize=1024)
def _find(name: str) -> str | None:
    for lang in ("en", "zh"):
        try:
            tag = valid_tag(langcodes.find(name, language=lang).to_tag())
        except LookupError:
            continue
        if tag is not None:
            return tag
    try:
        return valid_tag(langcodes.find(name).to_tag())  # an autonym: "Deutsch", "日本語"
    except LookupError:
        return None


def display_names(tag: str, variants: Mapping[str, Variant]) -> tuple[str, str]:
    """(English, simplified Chinese) display names of ``tag``."""
    if tag in variants:
        return variants[tag].en, variants[tag].zh
    lang = Language.get(tag)
    return lang.display_name("en"), fold_text(lang.display_name("zh"), Level.WIDTH)  # （） -> ()


def _zh_alternates(name: str) -> list[str]:
    """英语 <-> 英文: either suffix names the same language."""
    if name.endswith("语"):
        return [name[:-1] + "文"]
    if name.endswith("文") and len(name) > 2:
        return [name[:-1] + "语"]
    return []


def _forms(
    tag: str, variants: Mapping[str, Variant], aliases: Iterable[str], excluded: frozenset[str]
) -> list[str]:
    lang = Language.get(tag)
    en, zh = display_names(tag, variants)
    extra = variants[tag].aliases if tag in variants else ()
    names = [en, zh, *_zh_alternates(zh), *extra, *aliases]
    names += [lang.display_name("en"), lang.display_name("zh"), lang.display_name("zh-Hant")]
    names += [lang.autonym()]
    if "-" in tag:
        names.append(tag)  # "pt-BR" is distinctive; a bare "de" or "en" is an ordinary word
    out: list[str] = []
    for name in names:
        form = fold_text(name, Level.SPACE)
        if form and form not in excluded and form not in out:
            out.append(form)
    return out


def build_table(
    tags: Iterable[str],
    variants: Mapping[str, Variant],
    aliases: Mapping[str, Iterable[str]],
    excluded: Iterable[str] = (),
) -> LanguageTable:
    """The table for the registry's ``tags``; raises ValueError on a tag that is not BCP 47."""
    skip = frozenset(fold_text(x, Level.SPACE) for x in excluded)
    values: dict[str, str] = {}
    forms: dict[str, list[str]] = {}
    form_to_tag: dict[str, str] = {}
    for raw in tags:
        tag = valid_tag(raw)
        if tag is None or tag != raw:
            raise ValueError(f"language tag {raw!r} is not a BCP 47 tag in its standard form")
        en, zh = display_names(tag, variants)
        values[tag] = f"{tag} {en} {zh}"
        forms[values[tag]] = _forms(tag, variants, aliases.get(tag, ()), skip)
    # A more specific tag keeps a form a broader one shares ("中文" stays zh even if a
    # variant's autonym is also "中文"): broader tags are assigned last and win.
    for tag in sorted(values, key=lambda t: -t.count("-")):
        for form in forms[values[tag]]:
            form_to_tag[form] = tag
        form_to_tag[fold_text(values[tag], Level.SPACE)] = tag
    for tag, value in values.items():  # each form names one tag, or the extractor is torn
        forms[value] = [f for f in forms[value] if form_to_tag[f] == tag]
    return LanguageTable(values, forms, form_to_tag, dict(variants), skip)


_STEM = 5  # "Canad-ian", "Japan-ese", "Brazi-lian": a people shares its place's first letters
# ... and ends as a people's name does: "Mariana" (the islands) makes no people of "Maria"
_DEMONYM_ENDINGS = ("an", "ian", "ese", "ish", "i", "ic", "ean", "er", "ot", "ch", "ss")


@lru_cache(maxsize=1)
def _place_stems() -> frozenset[str]:
    """The first letters of every word of every region name in the IANA subtag registry
    (the data ``language-data`` ships for langcodes)."""
    stems: set[str] = set()
    for entry in parse_registry():
        if entry.get("Type") != "region":
            continue
        for description in entry.get("Description", ()):
            stems.update(w[:_STEM].lower() for w in re.findall(r"[A-Za-z]{3,}", description))
    return frozenset(stems)


def names_a_people_or_language(word: str) -> bool:
    """True when ``word`` may be a nationality or a language rather than a person's name:
    langcodes names a language it counts speakers of by it ("Chinese", "Dutch"), or
    it shares its first letters with a region's name and ends as a people's name does
    ("Canadian", "Japanese"). A name like "Jordan" is lost with them;
    a missed name is asked for later, a nationality filed as a name is wrong for months."""
    try:
        found = langcodes.find(word)
    except LookupError:
        pass
    else:
        # langcodes knows every language's name, "Maria", "Sara" and "Karen" among them: a
        # language its data counts speakers of is meant ("Welsh", "Maori"); one with no
        # count is a name far likelier than that language
        if (found.speaking_population() or 0) > 0:
            return True
    lower = word.lower()
    return lower[:_STEM] in _place_stems() and lower.endswith(_DEMONYM_ENDINGS)

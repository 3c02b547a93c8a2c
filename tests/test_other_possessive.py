"""Another person's attribute named by their possessive is theirs, not the owner's
(classifier_cues.EN_REPORTED: a word with "'s" before a personal key noun). Generated over
relation words, invented names, key nouns and catalogue values: "my <relation> <Name>'s
<key> is <value>" commits nothing; "my <key> is <value>" (the control) commits."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_usecases.explain import explain

_RELATIONS = ["co-founder", "cofounder", "flatmate", "landlord", "dentist", "mentor", "", "old"]
_NAMES = st.from_regex(r"[A-Z][a-z]{2,7}", fullmatch=True).filter(
    lambda n: n.lower() not in {"its", "lets", "thats", "whats", "heres", "theres"}
)
_KEYS = [
    ("timezone", ["Asia/Singapore", "Europe/Paris", "America/Chicago"]),
    ("time zone", ["Asia/Tokyo", "UTC+8"]),
    ("editor", ["vim", "emacs", "neovim"]),
    ("package manager", ["pnpm", "yarn"]),
]


def _committed(text: str) -> list[str]:
    return [c.key for s in explain(text) for c in s.candidates if c.decision == "COMMIT"]


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(_RELATIONS),
    _NAMES,
    st.sampled_from(_KEYS).flatmap(lambda k: st.tuples(st.just(k[0]), st.sampled_from(k[1]))),
    st.sampled_from(["", "Note for later: ", "Remember that ", "FYI, "]),
)
def test_someone_elses_attribute_by_their_possessive_is_not_the_owners(
    relation: str, name: str, key_value: tuple[str, str], lead: str
) -> None:
    key, value = key_value
    owner = f"{lead}my {key} is {value}."
    assert _committed(owner[0].upper() + owner[1:]), owner  # the control: the owner's own
    whose = f"my {relation} {name}" if relation else name
    text = f"{lead}{whose}'s {key} is {value}."
    assert _committed(text[0].upper() + text[1:]) == [], text

"""A clock the owner keeps is not where they live (detect.sensitive): "based on <zone>
time" names a time zone, so it is no precise location, while "based in <city>" still is.

Generated over the IANA catalogue (``zoneinfo.available_timezones``): every Area/Location
zone, and its city said as a place.
"""

from __future__ import annotations

import zoneinfo

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_shared.detect.sensitive import SensitiveCategory, sensitive_categories
from memwarden_usecases.explain import explain

ZONES = sorted(z for z in zoneinfo.available_timezones() if "/" in z and not z.startswith("Etc/"))
CITIES = sorted({z.rsplit("/", 1)[1].replace("_", " ") for z in ZONES if z[0].isupper()})
LOCATION = SensitiveCategory.PRECISE_LOCATION
# the areas of canonical zones ("Brazil/Acre" and the like are legacy links)
CANONICAL_AREAS = ("Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia",
    "Europe", "Indian", "Pacific")  # fmt: skip


@given(
    st.sampled_from(["I'm based on", "We're based on", "I live on", "I'm living on"]),
    st.sampled_from(ZONES + [c for c in CITIES if c[0].isupper()]),
    st.sampled_from([" time", " time, so plan around it", " timezone", " hours"]),
)
def test_a_time_zone_kept_is_no_location(lead: str, zone: str, tail: str) -> None:
    assert LOCATION not in sensitive_categories(f"{lead} {zone}{tail}.")


@given(
    st.sampled_from(["I'm based in", "I live in", "We're located in"]),
    st.sampled_from([c for c in CITIES if c[0].isupper()]),
)
def test_a_city_lived_in_is_still_a_location(lead: str, city: str) -> None:
    assert LOCATION in sensitive_categories(f"{lead} {city}.")


@given(
    st.sampled_from([c for c in CITIES if c[0].isupper()]),
    st.sampled_from(["most of the time", "full time", "part of the time", "these days"]),
)
def test_a_city_lived_in_part_of_the_time_is_still_a_location(city: str, when: str) -> None:
    assert LOCATION in sensitive_categories(f"I live in {city} {when}.")


@settings(deadline=None)  # the first example loads the extractor's lexicons
@given(
    st.sampled_from(["请", "帮我", "麻烦你", ""]),
    st.sampled_from(["记成", "设为", "记为", "设置成"]),
    st.one_of(
        st.sampled_from([z for z in ZONES if z.split("/")[0] in CANONICAL_AREAS]),
        st.builds(lambda s, h: f"UTC{s}{h:02d}:00", st.sampled_from("+-"), st.integers(0, 12)),
    ),
    st.booleans(),
)
def test_asking_to_record_a_time_zone_with_ba_commits_it(
    lead: str, verb: str, zone: str, traditional: bool
) -> None:
    # "请把我的时区记成 X": the 把 construction with a verb of recording is a remember-request
    text = f"{lead}把我的{'時區' if traditional else '时区'}{verb} {zone}。"
    decided = [(c.key, c.decision) for s in explain(text) for c in s.candidates]
    assert ("profile.timezone", "COMMIT") in decided, (text, decided)

"""Secret classes the blind adversarial corpus found leaking (issue 10), English and Chinese.

Each test states the class with its own examples (none taken from the corpus) and checks
that the finding covers the secret exactly, in the original text's offsets, and that a
harmless look-alike of the same class stays unflagged.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from stdnum import luhn
from stdnum.iso7064 import mod_97_10

from memwarden_shared.detect.secret_mask import MASK, mask_secrets, mask_session
from memwarden_shared.detect.secrets import find_secrets

SEPARATORS = [" ", "  ", ".", "-", "/", "·", "–", "—", " - ", " / ", " · "]


def _spans(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text)]


def _card(prefix: str, length: int, body: int) -> str:
    partial = (prefix + str(body).zfill(length))[: length - 1]
    return partial + luhn.calc_check_digit(partial)


def _iban(country: str, bban: str) -> str:
    check = 98 - int(mod_97_10._to_base10(bban + country + "00")) % 97
    return f"{country}{check:02d}{bban}"


def _cn_id(head17: str) -> str:
    weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    total = sum(int(d) * w for d, w in zip(head17, weights, strict=True))
    return head17 + "10X98765432"[total % 11]


def _grouped(number: str, sizes: list[int], sep: str) -> str:
    out, pos = [], 0
    for size in sizes:
        out.append(number[pos : pos + size])
        pos += size
    if pos < len(number):
        out.append(number[pos:])
    return sep.join(out)


# --- cards, IBANs and resident ids with any one separator ---------------------------------


@given(
    body=st.integers(min_value=0, max_value=10**14),
    sep=st.sampled_from(SEPARATORS),
    lang=st.sampled_from(["My card is {} thanks.", "信用卡号 {} 帮我记一下"]),
)
def test_cards__any_one_separator_is_found_exactly(body: int, sep: str, lang: str) -> None:
    written = _grouped(_card("4", 16, body), [4, 4, 4, 4], sep)
    text = lang.format(written)
    assert _spans(text) == [written]


@pytest.mark.parametrize("sep", SEPARATORS)
def test_cards__amex_and_diners_groupings_with_separators(sep: str) -> None:
    amex = _grouped(_card("37", 15, 123456789), [4, 6, 5], sep)
    diners = _grouped(_card("36", 14, 98765432), [4, 6, 4], sep)
    assert _spans(f"amex {amex}, diners {diners}") == [amex, diners]


def test_cards__mixed_separators_or_a_bad_checksum_are_not_a_card() -> None:
    number = _card("4", 16, 55501234)
    bad = number[:-1] + str((int(number[-1]) + 1) % 10)
    assert find_secrets(f"ticket {_grouped(bad, [4, 4, 4, 4], '/')} closed") == []
    assert find_secrets(f"路径 {number[:4]}/{number[4:8]}-{number[8:12]}.{number[12:]}") == []
    assert find_secrets("released 2024/03/15 - 2024/04/01 on schedule") == []


@pytest.mark.parametrize("sep", ["  ", "/", ".", "-", "·", " - "])
@pytest.mark.parametrize(
    ("country", "bban"),
    [("DE", "500105175407324931"), ("FR", "3000600001123456789O189"), ("NL", "RABO0300065264")],
)
def test_ibans__groups_of_four_any_separator_short_last_group(
    sep: str, country: str, bban: str
) -> None:
    iban = _iban(country, bban.replace("O", "0"))
    written = _grouped(iban, [4] * (len(iban) // 4), sep)
    for template in ("Please wire to {} tomorrow.", "收款账户：{}，谢谢"):
        text = template.format(written)
        assert _spans(text) == [written], text


def test_ibans__letters_inside_groups_are_part_of_the_number() -> None:
    iban = _iban("FR", "20041010050500013N02606")
    written = _grouped(iban, [4] * 7, "  ")
    assert _spans(f"IBAN {written}") == [written]


@pytest.mark.parametrize("sep", ["-", ".", " ", "/", "–", " - ", "·"])
def test_resident_ids__grouped_6_8_4_with_one_separator(sep: str) -> None:
    rid = _cn_id("32010619880215331")
    written = f"{rid[:6]}{sep}{rid[6:14]}{sep}{rid[14:]}"
    assert _spans(f"我的身份证是 {written} 。") == [written]
    assert _spans(f"ID number {written}, keep it safe") == [written]
    # a different separator in each gap is two numbers, not one id
    assert find_secrets(f"批次 {rid[:6]}-{rid[6:14]}.{rid[14:]}") == []


# --- TOTP seeds and chat webhooks ----------------------------------------------------------

SEED = "MFRGG43FMZ2XIZLSKRUGKY3P"  # base32 of b"abcsefuterThe co"-like bytes; synthetic


@pytest.mark.parametrize(
    "template",
    [
        "The TOTP secret for the VPN: {} — store it.",
        "two-factor seed is {}",
        "Authenticator setup key {}",
        "两步验证的种子：{}",
        "动态口令密钥是 {}，别丢了",
    ],
)
def test_totp_seeds_near_a_two_factor_word(template: str) -> None:
    text = template.format(SEED)
    assert _spans(text) == [SEED]


def test_totp_seed_inside_an_otpauth_uri_is_the_secret_parameter() -> None:
    uri = f"otpauth://totp/Shop:me@example.com?issuer=Shop&secret={SEED}&digits=6"
    spans = _spans(f"scan this: {uri}")
    assert SEED in "".join(spans)
    masked = mask_secrets(f"扫码：{uri}").text
    assert SEED not in masked and "issuer=Shop" in masked


def test_upper_case_words_near_a_two_factor_word_are_not_a_seed() -> None:
    assert find_secrets("Turn on 2FA for the ADMINISTRATORGROUPS account") == []
    assert find_secrets("两步验证已开启，组名 MARKETINGDEPARTMENT") == []


@pytest.mark.parametrize(
    ("url", "token"),
    [
        (
            "https://open.feishu.cn/open-apis/bot/v2/hook/{}",
            "0f8e2d4c-1b3a-4e5f-9a7b-6c5d4e3f2a1b",
        ),
        (
            "https://open.larksuite.com/open-apis/bot/v2/hook/{}",
            "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
        ),
        (
            "https://discord.com/api/webhooks/{}",
            "123456789012345678/Zq9" + "xY" * 30,
        ),
        (
            "https://oapi.dingtalk.com/robot/send?access_token={}",
            "9f8e7d6c5b4a39281706f5e4d3c2b1a0" * 2,
        ),
        (
            "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={}",
            "3c2a1b0d-9e8f-4a7b-6c5d-4e3f2a1b0c9d",
        ),
        ("https://hooks.slack.com/services/{}", "T0ABC1234/B0DEF5678/" + "qW3" * 8),
    ],
)
def test_chat_webhook_tokens_are_masked(url: str, token: str) -> None:
    for template in ("the alert webhook is {} ok", "群机器人地址：{} 记住"):
        text = template.format(url.format(token))
        masked = mask_secrets(text).text
        assert token not in masked, text
        assert token.split("/")[-1] not in masked


# --- spoken secrets --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Remember the garage entry code. It's 5k#29Lq.", "5k#29Lq"),
        ("Save my VPN login. It is Rt7$vo0kP!", "Rt7$vo0kP"),
        ("The guest wifi key: it's Pine-Cone-88", "Pine-Cone-88"),
        ("Our office alarm code — 93Xk!72", "93Xk!72"),
        ("The bike lock combination at work is 4 0 9 1 7", "4 0 9 1 7"),
        ("帮我记住登录密码。就是 Qa9!wLm2", "Qa9!wLm2"),
        ("我的取款密码：捌柒陆伍肆叁", "捌柒陆伍肆叁"),
        ("支付密码是 壹零贰玖捌柒 别告诉别人", "壹零贰玖捌柒"),
        ("密保问题「第一只宠物叫什么」的答案是：团团", "团团"),
        ("安全问题的答案是司马青云", "司马青云"),
        ("门禁密码：五 七 三 八 二 一", "五 七 三 八 二 一"),
    ],
)
def test_spoken_secret_is_found_exactly(text: str, secret: str) -> None:
    assert _spans(text) == [secret]


def test_spoken_codes_list_is_masked_whole() -> None:
    text = "Recovery codes for the bank app: 4471-2093 8812-6650 1937-4408. Keep them."
    masked = mask_secrets(text).text
    for code in ("4471-2093", "8812-6650", "1937-4408"):
        assert code not in masked
    assert masked.endswith("Keep them.")


@pytest.mark.parametrize(
    "text",
    [
        "Remember my VPN login. It's on the second monitor.",
        "I changed the wifi password. It's Tuesday again.",
        "The garage code. It is what it is.",
        "密码。就是这样，没什么好说的",
        "安全问题的答案我忘了",
    ],
)
def test_spoken_lookalikes_stay_unflagged(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    ("turns", "secret_turn"),
    [
        (["I'll send the router passphrase in my next message.", "Hx8!mq2Zr"], 1),
        (["Sending the NAS password in a separate message, ok?", "  tulip-97-Anvil  "], 1),
        (["家里wifi密码下一条发你", "Lm3#pq9z"], 1),
        (["保险柜密码我分两次发", "前半段 Kq7!", "后半段 x2Pz?"], 1),
    ],
)
def test_a_secret_announced_in_one_turn_is_masked_in_the_next(
    turns: list[str], secret_turn: int
) -> None:
    masked = mask_session(turns)
    secret = turns[secret_turn].strip()
    assert secret not in masked[secret_turn].text
    assert set(masked[secret_turn].text.strip()) <= {MASK}
    assert masked[0].text == turns[0]  # the announcement itself holds no secret


@pytest.mark.parametrize(
    ("turns", "halves"),
    [
        (["the vault password, first half: Gz4#p", "second half: 9Lw!e2"], ["Gz4#p", "9Lw!e2"]),
        (["前一半 k2R$w", "后一半 8mQ!x"], ["k2R$w", "8mQ!x"]),
    ],
)
def test_halves_of_a_password_are_each_masked(turns: list[str], halves: list[str]) -> None:
    for masked, half in zip(mask_session(turns), halves, strict=True):
        assert half not in masked.text


def test_ordinary_next_turn_after_ordinary_talk_is_kept() -> None:
    masked = mask_session(["I'll reply in my next message.", "I prefer dark mode"])
    assert masked[1].text == "I prefer dark mode"
    assert find_secrets("In the first half: planning and reviews") == []

"""Reason codes in words, English and Chinese: what the demo, ``memwarden explain`` and the
review console show beside a decision (issue 26 items 7 and 9). The codes stay the
machine's record (receipts, the API); these are for people. An unknown code is shown as is.
"""

from __future__ import annotations

from typing import Literal

Lang = Literal["en", "zh"]

# code -> (English, Chinese)
WORDS: dict[str, tuple[str, str]] = {
    # why the extractor proposed nothing from a sentence or a turn
    "role_assistant": ("said by the assistant, not the user", "助手说的，不是用户"),
    "role_tool": ("a tool's output, not the user's words", "工具输出，不是用户的话"),
    "role_system": ("a system prompt, not the user's words", "系统提示，不是用户的话"),
    "source_assistant_message": ("from an assistant message", "来自助手消息"),
    "source_tool_result": ("from a tool result", "来自工具结果"),
    "source_web_content": (
        "from web content (could be an injection)",
        "来自网页内容（可能是注入）",
    ),
    "third_party_author": ("written by someone other than the user", "不是用户本人写的"),
    "secret": ("holds a secret (masked, never remembered)", "含有机密（已遮盖，不会记住）"),
    "not_first_person_durable": (
        "not the user stating a lasting fact about themselves",
        "不是用户陈述关于自己的长期事实",
    ),
    "no_known_key": (
        "names nothing memwarden keeps (no known key)",
        "不涉及可记忆的内容（无已知键）",
    ),
    "invalid_value": ("the value is not valid for its key", "值不符合该键的格式"),
    "not_explicit": ("a note needs an explicit 'remember'", "备注需要明确的“记住”"),
    "ungrounded": ("the value is not in the sentence", "值不在句子中"),
    "refined_later": ("a later sentence of the message refines it", "同一消息中后面的句子更正了它"),
    # what the classifier read in a sentence (also gate receipt reasons)
    "explicit_instruction": ("the user asked to remember it", "用户明确要求记住"),
    "first_person_durable": ("the user states a lasting fact", "用户陈述长期事实"),
    "inferred": ("inferred, not stated", "推断而非陈述"),
    "negated": ("negated", "否定句"),
    "one_time": ("a one-time request", "一次性请求"),
    "hypothetical": ("hypothetical", "假设"),
    "question": ("a question", "疑问句"),
    "reported_speech": ("about someone else (reported)", "关于别人（转述）"),
    "uncertain": ("uncertain", "不确定"),
    "future_plan": ("a plan, not a fact yet", "计划，尚非事实"),
    "sarcasm": ("sarcasm", "反讽"),
    "refers_elsewhere": (
        'it only points at something said elsewhere ("those", "上面的")',
        "只指向别处说的内容（“那些”“上面的”）",
    ),
    "laughter": ("said laughing: not kept as a lasting fact", "带着笑说的：不当作长期事实"),
    "transient": ("a passing state", "暂时状态"),
    "root_cause": ("a diagnosis, not a preference", "原因分析，不是偏好"),
    "open_frame": ("left open (a condition or a question)", "未完结（条件或疑问）"),
    "conditional": ("holds only under a condition", "只在某个条件下成立"),
    "general_knowledge": ("general knowledge, not about the user", "常识，与用户无关"),
    "relative_time": ("holds a relative time", "含相对时间"),
    # the gate's reasons
    "not_durable": ("not a lasting fact", "不是长期事实"),
    "cross_subject": ("about another subject", "涉及其他主体"),
    "derived_from_not_current": ("derived from a memory that changed", "来源记忆已变更"),
    "evidence_mismatch": ("the cited evidence does not match the message", "引用证据与消息不符"),
    "evidence_not_complete": ("the evidence is not a whole sentence", "证据不是完整句子"),
    "evidence_revoked": ("its source message was revoked", "来源消息已撤销"),
    "message_not_found": ("its source message does not exist", "来源消息不存在"),
    "note_requires_explicit_instruction": (
        "a note needs an explicit 'remember'",
        "备注需要明确的“记住”",
    ),
    "scope_not_allowed": ("not allowed in that scope", "该范围内不允许"),
    "sensitive_forbidden": ("sensitive data that is never kept", "从不保存的敏感数据"),
    "suppressed": ("the user had it forgotten", "用户已要求遗忘"),
    "unknown_key": ("a key memwarden does not know", "未知的键"),
    "policy_review_all": ("the tenant reviews every memory", "租户要求逐条审核"),
    "sensitive_key": ("sensitive: the owner confirms first", "敏感信息：需本人确认"),
    "tainted_source": ("not the user's own words", "不是用户本人的话"),
    "conflicts_current": ("contradicts the current value", "与现有值矛盾"),
    "lost_race": ("another write to the same fact came first", "同一事实的另一写入在先"),
    "not_adjudicable": ("cannot be decided automatically", "无法自动判定"),
    "older_than_current": ("older than what is already known", "比已知信息更旧"),
    "semantic_duplicate": ("says what is already known", "与已知内容相同"),
}

DECISIONS: dict[str, tuple[str, str]] = {
    "COMMIT": ("remembered", "已记住"),
    "NOOP": ("already known", "已知"),
    "CONFIRM_REPLACE": ("waits for the owner (replaces a value)", "等待本人确认（替换）"),
    "NEEDS_CONFIRMATION": ("waits for the owner", "等待本人确认"),
    "QUARANTINE": ("quarantined", "已隔离"),
    "CONFLICT": ("conflicts with another write", "与其他写入冲突"),
    "REJECT": ("refused", "已拒绝"),
}


def in_words(code: str, lang: Lang = "en") -> str:
    pair = WORDS.get(code) or DECISIONS.get(code)
    if pair is None:
        return code
    return pair[0] if lang == "en" else pair[1]


def reasons_in_words(codes: list[str] | tuple[str, ...], lang: Lang = "en") -> str:
    return "; ".join(in_words(c, lang) for c in codes)

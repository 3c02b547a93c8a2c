"""Cue lists for :mod:`shared.classifier`, English and Chinese. Data only.

Every entry is a regular expression matched against the *folded* sentence (NFKC,
case-folded, curly apostrophes straightened; full-width comma, question mark, exclamation
mark and colon become ASCII).
English cues carry their own word boundaries. Keep each list sorted by meaning, not by
alphabet, and say why next to anything surprising: these lists are what a reviewer reads.
"""

from __future__ import annotations

# --------------------------------------------------------------------------- shared pieces

# Words that open a sentence without carrying meaning; stripped before looking for the
# grammatical subject ("Actually, my editor is Emacs" -> "my editor is Emacs").
EN_LEAD = (
    r"actually|also|and|but|so|oh|ok|okay|well|hey|hi|btw|by the way|fyi|just so you know"
    r"|for the record|one more thing|anyway|no|nope|nah|yes|yeah|right|sorry|correction"
    r"|update|note to self|to be clear|tbh|lol|haha+|lmao|imo|imho|fwiw|um+|uh+|hmm+|honestly"
    r"|hello|good (?:morning|afternoon|evening|day)|morning"
)
ZH_LEAD = (
    r"另外|还有|对了|顺便说一下|顺便|其实|哦|嗯|好的|话说|说起来|补充一下|更正一下"
    r"|纠正一下|我改主意了|改主意了|不对|抱歉"
    # greetings open a turn and say nothing of the claim ("你好～", "早上好！")
    r"|你好|您好|嗨|哈喽|哈啰|早安|早上好|上午好|中午好|下午好|晚上好|早(?=\s*[～~!！,，。、])"
)

EN_PERSON = (
    # "package manager" is a tool, not a person
    r"colleague|co-?worker|(?<!package )(?<!password )(?<!window )(?<!task )(?<!version )manager"
    r"|boss|friend|wife|husband|partner|spouse|girlfriend"
    r"|boyfriend|fiancee?|mom|mum|mother|dad|father|parent|brother|sister|sibling|son"
    r"|daughter|kid|child|children|teammate|team|company|employer|client|customer|roommate"
    r"|flatmate|neighbou?r|cousin|uncle|aunt|grand(?:ma|pa|mother|father)|cto|ceo|cfo"
    r"|teacher|professor|doctor|landlord|mentor|intern|tech lead|team lead|product manager"
    r"|designer|user|bf|gf"
)
ZH_PERSON = (
    r"同事|老板|领导|经理|上司|主管|朋友|老婆|老公|妻子|丈夫|太太|爱人|对象|女朋友|男朋友"
    r"|女友|男友|妈妈|爸爸|父母|母亲|父亲|家人|哥哥|姐姐|弟弟|妹妹|儿子|女儿|孩子|室友"
    r"|舍友|邻居|客户|该用户|用户|队友|团队|公司|组长|导师|老师|同学|别人|大家|有人|媳妇"
    r"|爷爷|奶奶|外婆|外公|姥姥|姥爷|叔叔|阿姨|舅舅|表哥|表姐|表弟|表妹|妈|爸|哥|姐|弟|妹"
)

# A decision of the group the owner belongs to ("our team decided", "the team agreed"): the
# owner's own context, not someone else's words. "The other team decided" is not theirs.
# A group's choice said as a plan, but marked as holding from now on: "We're going with
# Svelte from now on" (never "We're going with pizza tonight").
EN_GOING_WITH = (
    r"\bwe(?:'re| are|'ll be| will be)\s+(?:going|sticking|standardi[sz]ing)\s+(?:with|on)\b"
    r"(?=.*\b(?:from now on|going forward|from here on(?: out)?|for good|by default)\b)"
)
EN_GROUP_DECISION = (
    r"\b(?:my|our|the)\s+(?:team|squad|group|company|org|project|department)(?:'s)?"
    r"\s+(?:has\s+|have\s+)?(?:(?:just|finally|already|officially|all)\s+)?(?:decided"
    r"|agreed|chose|chosen|settled on|committed to|opted for|went with|landed on|signed off on)\b"
)  # "my team standardised on yarn" stays a report of the team's habit, not a decision
ZH_GROUP_DECISION = (
    # an English group noun written inside Chinese counts too ("我们 team 定了")
    r"(?:^|我们的?\s*|[，,：:]\s*)(?:团队|组|小组|项目组?|公司|部门|team|squad)\s*(?:里|内部)?"
    r"(?:已经|最终|最后|一致)?"
    r"(?:决定|商定|约定|定了|拍板|商量好了?|统一(?:用|使用)|敲定|定下来|定下了|选定)"
)
# A standing rule of the owner's own group, worded without "decide" (issue 25): the subject
# is the group ("our", "we", "我们", "团队" opening the sentence), the predicate a rule noun
# ("official", "convention", "standard", "final call", "规定", "惯例", "规范") and a copula or
# a colon. "The other team's convention is …" names no group of the owner's and stays out.
_EN_RULE_NOUN = r"(?:convention|standard|rule|policy|norm|house style|default)"
_EN_OUR_GROUP = r"\bour\s+(?:team(?:'s)?\s+|company(?:'s)?\s+|project(?:'s)?\s+)?"
_EN_GROUP_NOUN = r"(?:team|squad|group|company|org|project|department|side|end)"
# A decision label heading the sentence (issue 25, round 8): up to three words of its own
# (none another's: their, his, her, your, other, someone's), a decision or rule noun, an
# optional "from our side" / "on our team", then a colon or a dash: "Team decision: …",
# "Final word from our end: …", "Standard for our project: …". What follows is the group's.
_EN_LABEL_WORD = r"(?:(?!(?:their|his|her|your|other|another|someone|somebody)\b)[a-z-]+\s+)"
_EN_LABEL_NOUN = (
    r"(?:decision|call|word|convention|rule|policy|standard|agreement|consensus|norm"
    r"|guideline|practice|ruling)s?"
)
EN_DECISION_LABEL = (
    r"^(?:our\s+"
    + _EN_GROUP_NOUN
    + r"'s\s+)?"
    + _EN_LABEL_WORD
    + r"{0,3}"
    + _EN_LABEL_NOUN
    + r"(?:\s+(?:from|on|of|for|in|within)\s+(?:our|my)\s+"
    + _EN_GROUP_NOUN
    + r")?"
    r"\s*(?::|\s[-\u2014\u2013]|[\u2014\u2013])\s*\S"
)
# ... or tagging it after: "…, that's our team's convention", "… — this is our rule".
EN_DECISION_TAG = (
    r"[,;:\u2014\u2013-]\s*(?:that's|that is|this is|it's|it is)\s+(?:the\s+)?(?:our|my\s+"
    + _EN_GROUP_NOUN
    + r"'s)\s+(?:"
    + _EN_GROUP_NOUN
    + r"(?:'s)?\s+)?(?:official\s+)?"
    + _EN_LABEL_NOUN
    + r"\b"
)
EN_GROUP_RULE = (
    EN_DECISION_LABEL,
    EN_DECISION_TAG,
    _EN_OUR_GROUP + r"(?:official|standard|agreed|default|final|chosen|approved|sanctioned)\s+"
    r"(?:[\w.+#-]+\s+){0,2}?(?:is|are)\b",
    _EN_OUR_GROUP + _EN_RULE_NOUN + r"s?\s+(?:is|are)\b",
    r"^(?:it's|it is)\s+official\s*[:,\-—]\s*we\b",
    r"^(?:final|the final)\s+(?:call|decision|word)\s*[:,\-—]\s*we\b",
    r"\bwe(?:'ve| have)?\s+(?:officially\s+)?made\s+(?:it|[\w.+#-]+)\s+(?:the\s+)?(?:official"
    r"|standard|default)\b",
)
# The same label in Chinese: its own words only (final, official, the team's, ours), a
# decision or rule noun, a colon: "最终定论：…", "团队规定：…", "正式决定：…"; and the tag
# after: "…，这是我们团队的惯例".
_ZH_LABEL_NOUN = r"(?:决定|拍板|规定|惯例|规范|约定|共识|定论|规矩|标准)"
ZH_DECISION_LABEL = (
    r"^(?:最后|最终|正式|官方|团队|小组|组里|我们|咱们|的|新|大家|一致|共同|已经|刚刚|刚|team)*"
    + _ZH_LABEL_NOUN
    + r"了?\s*[：:]\s*\S"
)
ZH_DECISION_TAG = (
    r"[，,；;—]\s*(?:这|这个|那)(?:是|就是|算是)(?:我们|咱们)(?:的)?(?:团队|组|小组|项目组?|公司|部门|team)?"
    r"(?:的)?(?:官方|统一的?)?" + _ZH_LABEL_NOUN
)
ZH_GROUP_RULE = (
    ZH_DECISION_LABEL,
    ZH_DECISION_TAG,
    r"(?:我们|咱们)(?:的)?(?:团队|组|小组|项目组?|公司|部门)?(?:的)?(?:官方|统一的?)?"
    r"(?:规定|惯例|规范|约定|标准|规矩)(?:是|为|[：:])",
    r"(?:^|[，,：:]\s*)(?:团队|组里|小组|项目组?|公司|部门)(?:里|内部)?(?:的)?"
    r"(?:规定|惯例|规范|规矩)(?:是|为|[：:])?",
    r"^(?:最终|最后)(?:拍板|决定|定论)\s*[：:，,]\s*(?:我们|咱们)",
    # "我们团队的标准工具是 X", "我们的官方编辑器是 X": the group's own standard thing
    r"(?:我们|咱们)(?:的)?(?:团队|组|小组|项目组?|公司|部门)?(?:的)?(?:官方|标准|统一|指定|默认|最终)"
    r"(?:的)?[^，,。；;是为]{1,6}?(?:是|为|[：:])",
)

# Naming the owner's own family or pet is a fact about the owner's household, not words of
# the relative: "My wife is named Priya", "my son's name is Leo", "我女儿的名字是朵朵". A
# relative's pet ("my manager's dog is called Rocky") stays someone else's.
EN_FAMILY = (
    r"(?:wife|husband|partner|spouse|girlfriend|boyfriend|fiancee?|son|daughter|kid|child"
    r"|mom|mum|mother|dad|father|brother|sister|baby|grandma|grandpa|grandmother|grandfather)"
)
ZH_FAMILY = (
    r"(?:老婆|老公|妻子|丈夫|太太|先生|爱人|对象|女朋友|男朋友|女友|男友|儿子|女儿|孩子|宝宝"
    r"|妈妈|爸爸|母亲|父亲|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外婆|外公)"
)
EN_PET = (
    r"(?:dog|doggo|puppy|pup|cat|kitty|kitten|parrot|bird|budgie|hamster|gerbil|rabbit|bunny"
    r"|guinea pig|ferret|turtle|tortoise|snake|lizard|gecko|iguana|horse|pony|goldfish|fish"
    r"|retriever|labrador|lab|poodle|corgi|husky|beagle|terrier|bulldog|shepherd|pug"
    r"|dachshund|chihuahua|collie|spaniel|shiba|tabby|persian|ragdoll|siamese)"
)
ZH_PET = (
    r"(?:狗狗|小狗|狗|猫咪|小猫|猫|鹦鹉|鸟|仓鼠|兔子|兔|乌龟|龟|鱼|金鱼|蛇|蜥蜴|柯基|柴犬|哈士奇"
    r"|金毛|泰迪|布偶)"
)
# Having a named pet is a standing fact of the owner's household.
# Having a pet is a standing fact of the owner's household, named or not ("I have two cats",
# "我养了一只柯基"); wanting, having had or someone else's pet is not.
EN_HOUSEHOLD_DURABLE = (
    r"^(?:i|we)(?:'ve| have)?\s+(?:have|got|own|adopted)\s+(?:a|an|one|two|three|four|five"
    r"|[1-9])\s+(?:[a-z-]+\s+){0,2}?" + EN_PET + r"s?\b"
)
ZH_HOUSEHOLD_DURABLE = (
    r"^我(?:们)?(?:家)?(?:里)?(?:养了?|有)(?:一|两|三|四|五|[1-9])?[只条个]" + ZH_PET
)
# "Our cat is named Pixel", "I have a shellfish allergy", "我对芒果过敏", "我吃素": the owner's own
# standing facts, said without "I prefer".
EN_OWNER_FACT = (
    r"^our\s+(?:[a-z-]+\s+){0,2}?(?:" + EN_PET + "|" + EN_FAMILY + r")s?"
    r"(?:'s\s+(?:first\s+)?name\s+is|\s+(?:is|are)\s+(?:named|called))\b"
    r"|\bi\s+have\s+(?:a|an|severe|mild)?\s*[\w -]{0,30}?\s*allerg(?:y|ies)\b"
)
ZH_OWNER_FACT = r"^我(?:对)?[^，,。；;]{1,12}?过敏|^我(?:只)?吃素|^我是(?:个)?(?:素食|纯素)"
# The owner's pet named in passing and what it is like, in the present: "My dog Biscuit is
# three", "My parrot Kiwi talks a lot", "我家猫豆豆三岁了" (issue 25). A pet is no person,
# so its habits are the owner's household, not a third party's facts.
EN_PET_IN_PASSING = (
    r"^(?:my|our)\s+(?:[a-z-]+\s+)?" + EN_PET + r"\s+[a-z][\w'-]*\s+(?:is|loves|likes|hates"
    r"|enjoys|sleeps|eats|talks|barks|sings|has|weighs|knows|lives|gets along)\b"
)
ZH_PET_IN_PASSING = (
    r"^我(?:的|家的?|家里的?)(?:那?[只条个])?" + ZH_PET + r"[\u4e00-\u9fff]{1,3}?(?:今年)?"
    r"(?:[一二两三四五六七八九十\d]+岁|喜欢|爱吃|爱|很|特别|超级|每天|总是)"
)
HOUSEHOLD_NAMING = (
    r"^(?:my|our)\s+" + EN_FAMILY + r"(?:'s\s+(?:first\s+)?name\s+is|\s+is\s+(?:named|called))\b",
    r"^我(?:的|家的?)?" + ZH_FAMILY + r"(?:的名字|名字)?(?:叫|是|名叫)",
)
# What a REPORTED cue must not read as someone else's words.
REPORTED_EXEMPT = (
    EN_GROUP_DECISION,
    ZH_GROUP_DECISION,
    *EN_GROUP_RULE,
    *ZH_GROUP_RULE,
    *HOUSEHOLD_NAMING,
)

# --------------------------------------------------------------------------- English

# A remember-cue closing the sentence after a comma or a dash: "…, remember that", "… —
# keep that in mind", "…，记一下" (issue 25). The extractor strips it from the value.
EN_TRAILING_CUE = (
    r"[,;—–-]\s*(?:please\s+)?(?:remember(?:\s+(?:that|this|it))?|keep (?:that|this|it) in mind"
    r"|keep in mind|note (?:that|this|it)(?: down)?|make a note(?: of (?:that|this|it))?"
    r"|(?:don't|do not) forget(?:\s+(?:that|this|it))?)(?:\s*,?\s*(?:please|thanks|thank you|ok"
    r"|okay))?\s*[.!]*$"
)
ZH_TRAILING_CUE = (
    r"[，,；;]\s*(?:请|帮我|麻烦你?)?(?:记住|记一下|记下来|记下|记[着著]|记好)(?:了|哦|啊|吧|喔|呀|哈)?"
    r"\s*[。.!！~～]*$"
)
# The header of an inline list to remember: a remember-verb, what is listed at most, and a
# colon ("Remember two things:", "Please remember these:", "记住两件事：", "请记住这几点：").
LIST_HEADER = (
    r"^(?:(?:please\s+)?(?:remember|memori[sz]e|note|keep in mind|don't forget)"
    r"(?:\s+(?:these|those|this|the following|(?:these|those|the\s+)?(?:two|three|four|five"
    r"|a few|several|some|\d+)\s+(?:things|points|items|facts|notes)))?"
    # ... for whom or when: "remember 3 things for future chats:", "… about me:"
    r"(?:\s+(?:for|about|from|in)\s+[^:：]{1,30}?)?"
    r"|(?:请|麻烦你?)?(?:帮我)?(?:记住|记一下|记下|记[着著]|备忘)"
    r"(?:(?:这|以下|下面|如下)?(?:[一二两三四五六七八九十几\d]+)?\s*(?:件事(?:情)?|点|条|项|个要点)"
    r"|以下|如下|这些)?)\s*[:：]$"
)
EN_EXPLICIT = (
    # an imperative "remember" at the start, after optional fillers and "please"
    r"^(?:please\s+)?(?:(?:always|do|permanently)\s+)?(?:remember|memori[sz]e|keep in mind"
    r"|make a note|take note|note down|note that|jot down)\b",
    r"\bplease\s+(?:(?:always|do|permanently)\s+)?(?:remember|memori[sz]e|note|keep in mind"
    r"|make a note)\b",
    # "I want you to remember that", but not "I remember that" (recollection)
    r"(?<!\bi )(?<!\bwe )(?<!\bdo you )(?<!'ll )(?<!n't )(?<!not )(?<!never )"
    r"\bremember (?:that|this|my)\b",
    r"\b(?:don't|do not|never) forget\b",
    r"\b(?:don't|do not|never) let me forget\b",
    r"\b(?:save|store|add) (?:this|that|it) (?:to|in) (?:your )?(?:memory|memories|notes)\b",
    r"\bfor (?:future )?reference\b",
    EN_TRAILING_CUE,
)
# A note-style prefix, a label and a colon opening the sentence ("Note to self: …", "Memo:
# …", "备忘：…"): the owner files the rest as a note, as "remember" would. Read on the whole
# folded sentence: the label is also discourse filler, stripped before the cues above.
NOTE_PREFIX = (
    r"^(?:note to (?:self|myself)|memo(?: to (?:self|myself))?)\s*[:\-—]",
    r"^(?:备忘|备忘录|给自己的备忘)\s*[:：]",
    # a note label on its own or a "for later" one (issue 25): "Note: …", "FYI for later, …",
    # "For the record: …", "备注：…", "记录一下：…"
    r"^(?:note|nb|n\.b\.?|for later|for the record|for future reference)\s*[:\-—]",
    # ... addressed or timed, with an aside: "Note for later:", "Note to self (and you):"
    r"^(?:note|memo|reminder)\s+(?:to|for)\s+(?:self|myself|you|us|later|the future"
    r"|future reference|future me|next time)(?:\s*\([^()]{0,24}\))?\s*[:\-—]",
    r"^(?:fyi|just so you know)(?:\s+for (?:later|the future|future reference))\s*[:,\-—]",
    r"^(?:备注|记录一下|记录|笔记|留个底)\s*[:：]",
)
# A recurrence: what happens every time, on a weekday or weekly ("every Friday", "on
# Mondays", "each morning", "每周五", "每天早上").
EN_RECURRENCE = (
    r"\b(?:every|each)\s+(?:other\s+|single\s+)?\w+|\b(?:daily|weekly|monthly|nightly|fortnightly"
    r"|yearly|annually|weekdays|weekends)\b"
    r"|\bon\s+(?:mon|tues|wednes|thurs|fri|satur|sun)days\b"
)
ZH_RECURRENCE = r"每(?:天|日|晚|早|周|个?星期|个?礼拜|个?月|年|次|逢)|工作日|周末"
# A polite request is an instruction, not an information question.
EN_REQUEST = (
    r"\b(?:can|could|would|will) you (?:please )?(?:always )?(?:remember|note|keep in mind"
    r"|make a note|save)\b",
)
# A standing request to the assistant: a recurring reminder ("I'd like to be reminded every
# Friday to …", "每周五提醒我…"). It is an instruction to keep, like "remember"; a reminder
# once is a plan, and asked as a question it stays a question.
# Standing until the owner says otherwise: "until further notice", "在另行通知之前"
EN_UNTIL_REVOKED = (
    r"\buntil (?:further notice|(?:i|we) (?:say|tell you|decide) otherwise|(?:i|we) say so"
    r"|(?:i|we) change (?:it|that|my mind))\b"
)
ZH_UNTIL_REVOKED = (
    r"(?:在)?(?:我)?另行通知(?:之?前|以前)?|直到我(?:说|改)(?:了|为止)?|除非我(?:说|改)"
)
EN_STANDING_REQUEST = (
    r"\b(?:remind me|to be reminded|reminders?)\b(?=.*(?:" + EN_RECURRENCE + r"))",
)
# Degree and manner words that may stand between a subject (or a copula) and its verb
# without changing what is claimed: "I'm so used to X", "I totally prefer X" (issue 25).
INTENSIFIER = (
    r"(?:so|really|totally|very|quite|pretty|fully|completely|entirely|truly|genuinely"
    r"|seriously|absolutely|utterly|deeply|thoroughly|super|very much|just|still|all"
    r"|basically|practically|literally|virtually|pretty much)"
)
_EN_ADV = (
    r"(?:really|much|strongly|definitely|generally|usually|normally|typically|mostly|mainly"
    r"|always|also|still|now|only|just|honestly|personally|actually|totally|absolutely|do"
    r"|exclusively|primarily|tend to|like to|prefer to|" + INTENSIFIER + r")"
)
EN_NAME_IN_PASSING = (
    r"\bi(?:'m| am)\s+[a-z][\w'-]*\s*,?\s*(?:by the way|btw)\s*[.!]*$"
    r"|^(?:(?:hi|hello|hey)(?:\s+there)?|nice to meet you|btw|by the way)\s*[,!.]?\s*"
    r"i(?:'m| am)\s+[a-z][\w'-]*\s*[.!]*$"
)  # a name given in passing, read on the whole sentence: "Hi, I'm Priya" (issue 25)
EN_FIRST_PERSON_DURABLE = (
    # "want"/"need"/"have" are left out: "I want to know…", "I need help with yarn" state no
    # preference
    r"\bi\s+(?:" + _EN_ADV + r"\s+)*(?:prefer|like|love|enjoy|use|want(?! to)|work|live|speak"
    r"|write|code|program|go by|stick (?:with|to)|rely on|deploy|review|run|keep|start|wake"
    r"|sleep|eat|drink|own|reside|read|test|commit|push|build|ship|lead|manage|teach"
    r"|study|choose|pick|favou?r|commute|default to|swear by|hate|dislike|avoid"
    r"|reach for|turn to|go for|lean on|develop|host)s?\b",
    # "I do all my editing in Neovim", "I do most of my work in VS Code"
    r"\bi\s+(?:" + _EN_ADV + r"\s+)*do (?:all|most|everything|(?:all|most) of)\b",
    r"\bi(?:'ve| have)?\s+(?:\w+ly\s+|now\s+|just\s+|finally\s+)?(?:switched|moved|migrated"
    r"|changed)(?: over)? (?:from \S+ )?to\b",
    r"\bi(?:'d| would)\s+(?:much\s+|really\s+)?(?:like|prefer|rather|love)\b",
    r"\bi(?:'m| am)\s+(?:" + _EN_ADV + r"\s+)*(?:based|located|from|called|named|known as|a|an"
    r"|vegetarian|vegan|allergic|diabetic|left-handed|right-handed|in charge|responsible"
    r"|married|single|retired|living|the|in|on)\b",
    r"\b(?:is|are) (?:still |now )?my\b",  # "Vim is my editor of choice"
    r"^it(?:'s| is)\s+[\w.+#-]+(?:\s+[\w.+#-]+)?\s+for me\b",  # "It's Postgres for me"
    EN_HOUSEHOLD_DURABLE,
    EN_OWNER_FACT,
    EN_PET_IN_PASSING,
    r"\bmy\s+(?:[\w'/-]+\s+){0,4}?(?:is|are|has been)\b",  # "my package manager of choice is"
    # the value named before its role: "bun has been my package manager since …", "X is
    # still my editor"
    r"\b(?:is|are|has been|have been|'s been|was always)\s+(?:still\s+|now\s+|always\s+)?my\b",
    # a use that has lasted, and lasts: "I've used Emacs as my editor for 15 years", "I have
    # used pnpm since 2020" (a trend, "lately", stays a trend: EN_LATELY)
    r"\bi(?:'ve| have)\s+(?:always\s+)?(?:been\s+)?(?:used|using)\b(?=.*\b(?:for (?:\d+|many"
    r"|several|a few|two|three|four|five|ten) (?:years?|months?|decades?)|since\b))",
    r"\b(?:call me|i go by|you can call me)\b",
    # durable instructions: the imperative with a marker that it holds from now on
    r"\b(?:from now on|going forward|from here on(?: out)?|by default|as a rule|every time"
    r"|each time|whenever|permanently|for all|for every|for everything|for any)\b",
    EN_UNTIL_REVOKED,
    r"^(?:please\s+)?always\b",
    # an imperative about every reply, said of replies in the plural or "your answers":
    # "Keep answers short", "Use bullet points in your replies" (issue 25); a bare "Answer
    # in French" may be about this answer alone and stays out
    r"^(?:please\s+)?(?:keep|make|write|give|use|put|format|send|structure|start|end)\b"
    r"[^.;!?]{0,40}?\b(?:(?:your|all|any|the)\s+)?(?:answers|replies|responses|explanations"
    r"|summaries)\b(?![^.;!?]*\b(?:above|below|here|today|this time)\b)",
    # decisions the owner states (SPEC §6 decision.note)
    r"\b(?:we|i)(?:'ve| have)?\s+(?:(?:just|finally|already|officially|all)\s+)?(?:decided"
    r"|agreed|chose|chosen|settled on|standardi[sz]ed on|committed to|opted for|went with"
    r"|landed on|signed off on)\b",
    r"\bour decision\b|^decision:",
    EN_GROUP_DECISION,
    *EN_GROUP_RULE,
)
# Decision cues again, on their own: the extractor routes these to decision.note.
EN_DECISION = (
    r"\b(?:we|i)(?:'ve| have)?\s+(?:(?:just|finally|already|officially|all)\s+)?(?:decided"
    r"|agreed|chose|chosen|settled on|standardi[sz]ed on|committed to|opted for|went with"
    r"|landed on|signed off on)\b",
    r"\bour decision\b|^decision:",
    EN_GROUP_DECISION,
    EN_GOING_WITH,
    *EN_GROUP_RULE,
)
# A trend, not a statement: "I've been using bun a lot lately" is INFERRED, however
# first-person it sounds; the owner is asked instead.
EN_LATELY = (r"\b(?:lately|recently|these days|nowadays|of late)\b",)
EN_DURABLE_FROM_NOW = (
    r"\b(?:from now on|going forward|from here on(?: out)?|from today on|starting today"
    r"|by default|as a rule)\b",
    # standing until the owner says otherwise: "until further notice", "until I say otherwise"
    EN_UNTIL_REVOKED,
)
# Phrases that contain a negation word without negating the claim; removed before matching.
# "X, not Y" closing a sentence turns down the alternative; the claim itself is positive
# ("I use pnpm, not npm"). Y must be a name, not an adverb ("I like it, not really").
_EN_NOT_ADVERB = (
    r"(?!(?:really|quite|sure|exactly|always|anymore|yet|now|much|so|too|bad|that|this|because"
    r"|since|for|when|if|at|on|in|to|as|only|just|even|ever|necessarily|me|it|at all|by)\b)"
)
EN_CONTRAST = (
    r",\s*(?:and\s+|but\s+)?not\s+(?:the\s+|a\s+|an\s+|plain\s+|regular\s+)?"
    + _EN_NOT_ADVERB
    + r"[a-z][\w.+#-]*(?:\s+[a-z][\w.+#-]*)?\s*[.!]?\s*$"
)
ZH_CONTRAST = (
    r"[，,]\s*(?:而)?(?:不用|不是|不要|别(?:给我)?用)\s*[a-z][\w.+#-]*\s*[。.!！]?\s*$"
    r"|而(?:不是|非)\s*(?:用\s*)?[a-z][\w.+#-]*"
)
# The same turn-down in other words: "I use Podman instead of Docker", "rather than Chrome".
EN_INSTEAD = (
    r"\b(?:instead of|rather than)\s+(?:the\s+|plain\s+|using\s+)?[a-z][\w.+#-]*"
    r"(?:\s+[a-z][\w.+#-]*)?\s*[.!]?\s*$",
)
# A first-person habit in the present tense, before such a turn-down: "I indent with tabs,
# not spaces", "I'm on Firefox, not Chrome". A past verb ("I ate pizza, not pasta") is an
# event, so -ed forms and the common irregular pasts never count.
EN_PRESENT_HABIT = (
    r"^i\s+(?:" + _EN_ADV + r"\s+)*(?!(?:ate|went|had|got|made|took|bought|wrote|ran|did|saw"
    r"|was|were|said|told|sent|paid|gave|left|came|met|found|chose|picked|tried|meant|thought"
    r"|felt|heard|kept|lost|sold|spent|won|drove|flew|sat|stood|fell|broke)\b)[a-z]+(?<!ed)\b"
    r"|^i(?:'m| am)\s+(?:on|using|with|in|a|an)\b",
)
# A standing rule for the owner's own work, as an imperative of choosing: "Use yarn for my
# projects", "Stick with tabs in all my repos". "Run the tests in my repos" is a task.
EN_STANDING_CHOICE = (
    r"^(?:please\s+)?(?:use|prefer|stick (?:with|to)|go with|default to|pick|choose)\b"
    r".*\b(?:for|in|across)\s+(?:all\s+)?(?:of\s+)?my\s+(?:own\s+)?(?:\w+\s+)?(?:projects"
    r"|repos|repositories|code|codebases|work|apps|scripts)\b",
)
# A clause that names a new value the owner changed to: "I've switched to Y", "I moved to Y",
# "I'm on Y now", "now I use Y", "I use Y now".
# A habit that ended, before the old value: "I used to use X", "I stopped using X", "I quit X".
EN_ENDED_HABIT = (
    r"(?<!'m )(?<!\bam )(?<!\bget )(?<!\bgot )(?<!\bbe )(?<!\bbeen )(?<!getting )used to"
    r"|stopped(?: using| with)?|quit(?: using)?|gave up(?: on)?"
)
EN_SWITCH_CLAUSE = (
    r"(?:(?:and|but|so)\s+)?(?:(?:i|i've|i have|i'm|i am)\s+)?(?:now\s+)?(?:fully\s+|finally\s+)?"
    r"(?:switched|moved|changed|migrated|gone over|went over|converted"
    r"|(?:use|using|on)\b(?:[^.;!?]|[.!?](?=\w))*\bnow\b)"
    r"|now\s+(?:i\s+)?(?:use|it's|its|i'm on)\b"
)
EN_NEGATION_EXEMPT = (
    EN_CONTRAST,
    r"\b(?:don't|do not|never) (?:let me )?forget\b",
    r"\bnot only\b",
    r"\bno matter\b",
    r"\bnever mind\b",
    r"\bwhether or not\b",
    r"\bno problem\b",
    r"\bno worries\b",
    # interjections that vouch for what follows: "No kidding, I use Neovim", "no doubt"
    r"\bno (?:kidding|joke|lie|doubt|question|wonder)\b",
    r"\bnot (?:gonna|going to) lie\b",
    r"\b(?:i'm |i am )?not (?:kidding|joking)\b",
    # being used to something is a present habit, however intensified: "I'm so used to X",
    # "I am really quite used to X" (issue 25; the lookbehinds below only see one word)
    r"\b(?:'m|am|are|be|been|get|gets|got|getting)\s+(?:" + INTENSIFIER + r"\s+)+used to\b",
    r"^(?:no|nope|nah)\s*[,.!:;-]",  # "No, I prefer yarn": a correction, not a negation
    # refusing to change reinforces the claim: "I use vim and never switch"
    r"\b(?:never|don't|do not|won't|will not|wouldn't) (?:ever )?(?:switch|change|move)(?:ed)?"
    r"(?: away)?\b(?! to\b| from\b)",
    # a switch: the negation is about the old value, and a clause after it names the new one
    # ("not X anymore — I've switched to Y", "I don't use X anymore, I'm on Y now")
    r"(?:[^,;:.!?\u2014\u2013]|[.!?](?=\w))*\b(?:anymore|any more|no longer|"
    + EN_ENDED_HABIT
    + r")\b"
    r"(?:[^,;:.!?\u2014\u2013]|[.!?](?=\w))*"
    r"[,;:\u2014\u2013-]+\s*(?=" + EN_SWITCH_CLAUSE + r")",
)
EN_NEGATED = (
    r"\b(?:not|never|no longer|no|nobody|nothing|neither|nor|none|hardly|barely|cannot)\b",
    r"\b\w+n't\b",
    # a negative attitude turns the mentioned value into its opposite ("I hate dark mode")
    r"\b(?:dislikes?|hates?|can't stand|avoids?|stopped|quit|gave up|switched away from)\b",
    # the same attitude in other words: aversion verbs, being tired of something, leaving it
    r"\b(?:loath(?:e|es|ing)|detest(?:s|ing)?|despis(?:e|es|ing)|abhor(?:s|ring)?|resent(?:s)?"
    r"|can(?:'t|not) bear|(?:sick|tired|weary) of|fed up|done with|over it|averse to"
    r"|(?:steer|stay|keep|kept|stayed|steered) (?:clear of|away from)|object to"
    r"|(?:ditch|drop|abandon|uninstall|dump|scrap)(?:ped|ed)\b|got rid of|moved (?:away|off)"
    r"|walked away from|turned away from|give up on|pass on|can do without|anything but"
    r"|drives? me (?:crazy|nuts|mad|insane|up the wall)|(?:annoys?|bugs|irritates?|frustrates?"
    r"|infuriates?) me|ugh|yuck|eww|meh|ex-\w+ user)\b",
    # a habit that ended: "I used to use vim" (but "I'm used to vim" is a present habit)
    r"\b(?:" + EN_ENDED_HABIT + r")\b",
)
EN_ONE_TIME = (
    r"\bthis time\b",
    r"\b(?:just )?this once\b",
    r"\bjust once\b",
    r"\bfor now\b",
    r"\bfor the time being\b",
    r"\bfor the moment\b",
    r"\bjust for (?:this|today|now)\b",
    r"\bfor this (?!reason\b|purpose\b|kind\b|sort\b|type\b|is\b)\w+",
    r"\bfor the current (?:task|session|project|run|sprint|ticket|issue|build|release)\b",
    r"\b(?:today|tonight) only\b",
    r"\bonly (?:for )?(?:today|tonight)\b",
    r"\bjust (?:for )?(?:today|tonight)\b",
    r"\bfor today\b",
    r"\btemporar(?:il)?y\b",
    r"\bin this (?:session|chat|conversation|thread)\b",
    r"\bthis (?:session|run)\b",
    r"\bone-?off\b",
    r"\bfor the next (?:hour|few|couple|\d+)\b",
)
EN_HYPOTHETICAL = (
    r"\bif\b(?! (?:possible|available|you can|you could|so|not|needed|necessary|applicable"
    r"|any)\b)",
    r"\bsuppos(?:e|ing)\b",
    r"\bimagine\b",
    r"\bin case\b",
    r"\bwere to\b",
    r"\bhypothetically\b",
    r"\bassuming\b",
    r"\blet's say\b",
    r"\bi wish\b",
    # conditional mood; "I'd like/prefer/rather" is a polite present preference instead
    r"\b(?:i|we|you|it|that|this|they|he|she)(?:'d| would)\b"
    r"(?! (?:much |really )?(?:like|prefer|rather|love|appreciate)\b)",
    # a wish in the conditional ("I'd rather …", "I would prefer to try X here") is not a
    # standing preference, unless it asks the assistant for something ("I'd like your replies
    # in French", "I'd prefer you call me Sam"): a standing instruction, said politely
    r"\b(?:i|we)(?:'d| would)\s+(?:(?:much|really|also|still|just|personally)\s+)*"
    r"(?:like|prefer|rather|love)\b(?![^.;!?]*\b(?:you|your|replies|reply|answers?|responses?"
    r"|output|explanations?|summar(?:y|ies)|messages?|to be (?:called|addressed|reminded)"
    r"|reminders?)\b)",
)
EN_HYPOTHETICAL_EXEMPT = (
    r"\bas if\b",
    r"\beven if\b",
    r"\bno matter (?:if|whether)\b",  # a concession, like "even if" (issue 25)
    # a polite wish, like "I'd rather": "I'd prefer it if you …", "I'd like it if you …"
    r"(?:(?<=\bprefer )|(?<=\blike )|(?<=\blove )|(?<=\bappreciate ))it if\b",
    r"\bsee if\b",
    r"\bask (?:me )?if\b",
)
EN_QUESTION = (
    r"^(?:should|shall|can|could|would|will|do|does|did|is|are|am|was|were|have|has|may"
    r"|might)\s+(?:i|we|you|it|this|that|there|he|she|they|my|the)\b",
    r"^(?:what|which|who|whom|whose|where|when|why|how)\s+(?:should|shall|can|could|would"
    r"|will|do|does|did|is|are|am|was|were|have|has|about)\b",
    r"\bshould i\b",
    r"\bi (?:was )?wonder(?:ing)?\b",
    r"^any (?:idea|ideas|thoughts|suggestions|recommendations|good)\b",
    r"\b(?:how (?:to|do|can|should)|want to know|need to know|not sure how)\b",
)
EN_REPORTED = (
    # a third person is the subject of the sentence
    r"^(?:(?:my|our|his|her|their|the|a|an|this|that|these|those|one of my|one of our)\s+"
    r"(?:[\w'-]+\s+){0,2}?)?"
    r"(?:" + EN_PERSON + r")(?:s|es)?(?:'s)?\b",
    r"^(?:he|she|they|his|her|their|someone|somebody|everyone|everybody|people)\b",
    r"\b(?:he|she|they|(?:" + EN_PERSON + r")s?)\s+(?:said|says|told me|mentioned|thinks"
    r"|believes|claims|reckons|insists)\b",
    r"\baccording to\b",
    # a claim filed for others at once: "set everyone's theme to dark", "for all users"
    r"\b(?:everyone|everybody|every user|each user|all (?:the )?(?:users|members|teammates))"
    r"(?:'s|')"
    r"|\bfor (?:everyone|everybody|all (?:the )?users|the whole team|all of (?:them|us))\b",
    # attributed by a preposition or a possessive: "Per my lead:", "my boss's message:"
    r"^(?:per|via|from|by|quoting|as (?:told|said|written|put) by|in the words of)\s+"
    r"(?:(?:my|our|the|his|her|their|a)\s+)?(?:" + EN_PERSON + r"|lead|supervisor|pm)s?\b",
    r"\b(?:" + EN_PERSON + r")s?'s? (?:message|reply|email|mail|comment|words|note|post|answer"
    r"|text|dm|slack)\b",
    r"\bi (?:heard|read) (?:that|somewhere)\b",
    # a person's own attribute named by their possessive: "my co-founder Ana's time zone is
    # …", "Sam's editor is …" (a word with "'s" before a personal key noun that is no
    # contraction: "it's", "that's", "let's"… and the owner's own group are not persons)
    r"\b(?!(?:it|that|what|who|where|there|here|he|she|let|today|tonight|everyone|everybody"
    r"|one|this|team|company|project|group|org|squad)'s)[a-z][\w-]*'s\s+(?:own\s+|usual\s+"
    r"|preferred\s+|favou?rite\s+)?(?:time ?zone|tz|name|first name|last name|nickname|editor"
    r"|ide|email|e-mail|phone|number|address|birthday|theme|shell|os|package manager|location"
    r"|home(?:town)?|city|reply language|language)\b",
    r"\b(?:the|this|that) users?(?:'s)?\b",  # the speaker never calls themself "the user"
    # the owner's own words said elsewhere: "I said in the meeting that I like X" reports a
    # speech act, not a stance stated here ("as I said, …" and "I told you …" restate it)
    r"(?<!\bas )(?<!\blike )\bi (?:(?:once|already|just|also|then) )?(?:said|mentioned|wrote"
    r"|claimed|posted|replied|answered|argued|explained|announced|told (?!you\b)[\w']+)\b"
    r"[^.;!?]*?\bi\b",
)
# The things a group owns are workspace facts, not facts about a person: "my team's tickets
# live in Jira" is the owner's context; "my team prefers yarn" is still reported.
EN_GROUP_ARTIFACT = (
    # "my team's wiki", and without the 's "my team sync": the group's thing, not its words
    r"^(?:my|our|the)\s+(?:team|company|employer|org|organi[sz]ation|project|department)(?:'s)?\s+"
    r"(?:tickets?|issues?|repos?|repositor(?:y|ies)|docs?|documentation|wiki|runbooks?|code"
    r"|codebase|ci|pipelines?|backlog|board|standups?|meetings?|deploys?|releases?|services?"
    r"|on-?call|sprints?|roadmap|syncs?|retros?|channel|calendar|offsites?|lunch)\b",
)
# "Alice prefers yarn": checked on the original-case sentence.
EN_REPORTED_NAME = (
    r"^[A-Z][a-z]+(?: [A-Z][a-z]+)? (?:says|said|thinks|thought|prefers|likes|loves|lives"
    r"|uses|wants|told|mentioned|believes|claims|works|wrote|writes|posted|replied|texted"
    r"|asked)\b",
    r"^(?:Per|Via|From|Quoting)\s+(?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday"
    r"|Sunday|January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Today|Tomorrow|Now|Then|Next|Last|This|Here|There)\b)[A-Z][a-z]+\s*[:,]",
    r"^[A-Z][a-z]+'s (?:message|reply|email|mail|comment|words|note|post|answer|text|DM)\b",
)
EN_UNCERTAIN = (
    r"\b(?:probably|maybe|perhaps|possibly|likely|unlikely|presumably|supposedly|apparently"
    r"|allegedly|might|hopefully|iirc|afaik)\b",
    r"\bi (?:think|guess|suppose|believe|reckon|assume|suspect|feel like|hope)\b",
    r"\b(?:not sure|unsure|not certain|uncertain|no idea|who knows|or something)\b",
    r"\b(?:could be|seems?|seemed|looks like|sort of|kind of)\b",
    r"\b(?:i|we|it|this|that|they|he|she|you) may\b",
    r"\bmay be\b",
)
EN_FUTURE_PLAN = (
    r"\b(?:thinking (?:about|of)|considering|planning (?:to|on)|plan(?:s)? to|going to|gonna"
    r"|intend(?:ing)? to|hoping to|hope to|at some point|some ?day|one day|eventually"
    r"|sooner or later|in the (?:near|long) (?:term|future)|down the (?:road|line)|later on"
    r"|soon)\b",
    r"\bwant to (?:try|switch|move|learn|start|migrate|change|explore|test|look into)\b",
    r"\b(?:i|we)(?:'ll| will| shall)\b(?! (?:always|never)\b)",
    r"\bwill (?:switch|move|migrate|try|start|change|adopt)\b",
)
EN_SARCASM = (
    r"\boh (?:great|wonderful|joy|fantastic|perfect|sure|yeah|brilliant|lovely|good)\b",
    r"\byeah,? right\b",
    r"\b(?:i )?(?:just |really |absolutely )?love (?:it )?when\b",
    r"\bthanks a lot\b",
    r"\bthanks for nothing\b",
    r"\bas if\b",
    r"/s$",
    r"\bwhat a (?:joy|treat|surprise)\b",
    r"\bjust what i needed\b",
    r"\bmy favou?rite thing\b",
    r"\bsure,? because\b",
    r"\bhow (?:wonderful|lovely)\b",
    # a joke owned up to at the end: "…, jk", "just kidding", "kidding!" (issue 25)
    r"\b(?:jk|j/k|just kidding|just joking|kidding|joking)\s*[.!)]*\s*$",
)
EN_TRANSIENT = (
    r"\bi(?:'m| am)\s+(?:so |really |very |a bit |kind of |pretty |super |too )?(?:tired|sleepy"
    r"|exhausted|hungry|thirsty|sick|ill|busy|stressed|bored|angry|annoyed|frustrated|upset"
    r"|cold|hot|late|away|offline|afk|in a (?:meeting|hurry|rush)|on (?:a|the) (?:train|plane"
    r"|bus|call|road|ferry|boat|ship|tram|subway|metro|flight)|on (?:vacation|holiday|leave)"
    r"|travell?ing|driving)\b",
    r"\b(?:right now|at the moment|atm|just now|this week|this weekend)\b",
    r"(?<!starting )(?<!from )(?<!as of )(?<!since )\b(?:today|tonight|this morning"
    r"|this afternoon|this evening)\b",
    r"(?:^|[\s'\"(=:])(?:/tmp/|/var/tmp/|%temp%)",
    r"\btemp(?:orary)? (?:dir|directory"
    r"|folder|file|branch|path)\b",
    r"\bscratch (?:dir|directory|file|branch)\b",
)
# Root-cause claims: transient (unverified) when any uncertainty cue is also present.
EN_ROOT_CAUSE = (
    r"\b(?:caused by|due to|because of|root cause|the reason (?:was|is)|triggered by"
    r"|resulted from|to blame)\b",
)

# --------------------------------------------------------------------------- Chinese

_ZH_REMEMBER = r"(?:记住|记下|记一下|记[着著]|记得|牢记|备注一下|记录一下)"
ZH_EXPLICIT = (
    r"^(?:请|麻烦你?)?(?:帮我|帮忙|你)?(?:务必|一定要?|要|永远|长期|永久)?" + _ZH_REMEMBER,
    r"(?:请|帮我|麻烦你?|帮忙)(?:务必|一定要?|永久|长期)?" + _ZH_REMEMBER,
    r"(?:别|不要)(?:让我)?忘(?:了|记)",
    ZH_TRAILING_CUE,
    # the 把 construction with a verb of recording: "请把我的时区记成 UTC+8", "把我的编辑器设为…"
    r"(?:请|麻烦你?|帮我)?把我的?[^，,。；;]{1,12}?(?:都)?(?:记成|记为|记作|设成|设为|设置成|设置为"
    r"|存成|存为)",
)
ZH_REQUEST = (r"(?:能|可以|能不能|可不可以|麻烦)(?:你)?(?:帮我)?(?:记住|记一下|记下)",)
ZH_STANDING_REQUEST = (
    r"(?:"
    + ZH_RECURRENCE
    + r")[^，,。；;！？!?]{0,8}?提醒我|提醒我[^，,。；;！？!?]{0,4}?(?:"
    + ZH_RECURRENCE
    + r")",
)
# Where the owner does it, between 我 and the verb: "我在 27 寸的屏上一直用…", "我电脑和手机上都用…"
ZH_LOCATIVE = r"(?:在)?[^,.!?;。，]{1,16}?[上里中内](?=\s*(?:都|也|一直|一般|通常|平时|总是|只)?用)"
ZH_FIRST_PERSON_DURABLE = (
    # a switch with the subject dropped, said of the owner's own thing: "现在改用 X 了",
    # "编辑器已经换成 X" (another subject before it is another's: "他现在改用…")
    r"^(?:(?:编辑器|主题|包管理器|时区|终端|输入法|浏览器|系统|shell|ide|editor)\s*)?"
    r"(?:现在|已经|目前)(?:都|也)?(?:改用|换成|换到|切到|切换到|转到|改成)",
    r"我(?!们)(?:"
    + ZH_LOCATIVE
    + r")?[^,.!?;。]{0,8}?(?:更喜欢|最喜欢|比较喜欢|喜欢|偏好|偏爱|习惯|一直|一向|向来"
    r"|平时|平常|通常|总是|常用|惯用|用惯|只用|都用|爱用|住在|家在|定居|叫|来自|换成|改用|切换到"
    r"|换到|转到|改成|搬到|搬来)",
    r"我的[^,.!?;。]{1,8}?(?:是|为|叫)",
    r"是我(?:的|最)(?:首选|最爱|默认|常用|主力)",
    r"叫我",
    r"以后都|以后一律|以后请|今后|从现在起|从现在开始|从今以后|往后都|默认|一律|始终|每次都",
    # every reply: "回答都用繁体中文", "回复全部简短一些" (issue 25)
    r"(?:回答|回复|答复)(?:都|全都|一律|全部|统统)",
    # a wish addressed to the assistant about its standing behaviour: "我希望你以后…",
    # "希望以后回答…", "我想让你以后…" (issue 25)
    r"^(?:我)?(?:希望|想让|想要|想请|请)(?:你|您)?(?:以后|今后|往后|之后都|一直|每次)",
    # "以后用英式英语回答我", "请一直用德语回答我": the imperative that holds from now on
    # ... also as a change ("以后改成用英文回复我", "今后换成用日语回答")
    r"^(?:请)?(?:以后|今后|从现在起|" + ZH_UNTIL_REVOKED + r")[，,\s]*(?:请)?(?:就|都)?"
    r"(?:(?:改|换)(?:成|为)?)?(?:用|说|讲|回)",
    # an instruction conditioned on the assistant's own act: "回答的时候请用…", "解释代码时都给例子"
    r"^(?:以后|今后)?(?:你)?(?:回答|回复|解释|总结|比较|对比|介绍|推荐|写)[^，,。；;]{0,8}?(?:的时候|时)"
    r"[，,\s]*(?:请|麻烦)?(?:都|一直|尽量)?(?:用|给|加|列|带|写|附)"
    r"|^(?:请|麻烦)?(?:你)?(?:一直|总是|永远)(?:用|说|讲|以)",
    # "我所有软件都开深色模式": everything the owner does, always
    r"我(?!们)[^,.!?;。]{0,6}?(?:所有|全部|每个|每一个|任何)[^,.!?;。]{0,8}?都",
    r"(?:我们|我)(?:已经|最终|最后|一致)?(?:决定|商定|约定|定了|拍板|统一(?:用|使用))|决定了",
    ZH_GROUP_DECISION,
    *ZH_GROUP_RULE,
    ZH_HOUSEHOLD_DURABLE,
    ZH_OWNER_FACT,
    ZH_PET_IN_PASSING,
    # where the owner's things run: "我的项目都部署在阿里云上"
    r"我的[^,.!?;。]{1,8}?(?:都|全|一般|一直|通常)?(?:部署在|跑在|托管在|放在|运行在|记在|保存在|存放在|写在)",
)
# Weak first-person verbs count only in a clause without a completed-action marker:
# "我用 pnpm" is a habit, "我用 npm 装了个包" is an event.
ZH_FIRST_PERSON_WEAK = (
    r"我(?!们)(?:"
    + ZH_LOCATIVE
    + r")?[^,.!?;。]{0,6}?(?:用|是|住|在[^,.!?;。]{1,10}(?:工作|上班))",
    r"我的[^,.!?;。]{1,8}?用",  # "我的 shell 用 fish"
)
ZH_ASPECT_EVENT = r"[了过着]|正在"
ZH_DECISION = (
    r"(?:我们|我)(?:已经|最终|最后|一致)?(?:决定|商定|约定|定了|拍板|统一(?:用|使用)|敲定"
    r"|定下来|定下了|选定)|决定了",
    ZH_GROUP_DECISION,
    *ZH_GROUP_RULE,
)
ZH_LATELY = (r"最近|这阵子|近来|这段时间|这些天",)
# An obligation is a constraint of some situation, not a preference: "I have to use npm at
# work", "我需要用 npm". It keeps a sentence from counting as first-person durable.
EN_SITUATIONAL = (
    r"\b(?:needs? to|have to|has to|had to|must|got to|gotta|supposed to|required to)\b",
)
ZH_SITUATIONAL = (r"需要|必须|得用|只能|不得不|被要求",)
ZH_DURABLE_FROM_NOW = (
    r"以后都|以后一律|今后|从现在起|从现在开始|从今以后|往后都|默认|一律",
    ZH_UNTIL_REVOKED,
)
# The same with a Chinese name for the turned-down one ("我用空格缩进，不用制表符", "我用空格
# 而不是制表符"); a degree word or a reason after 不是 is a plain negation ("不是很常用").
_ZH_NOT_ADVERB = r"(?![很太特非那这怎一总常经再也都还就才可会想要能因为了大完全])"
ZH_CONTRAST_CJK = (
    r"[，,]\s*(?:而)?(?:不用|不是|别用)\s*"
    + _ZH_NOT_ADVERB
    + r"[\u4e00-\u9fff]{2,5}\s*[。.!！]?\s*$"
    r"|而(?:不是|非)\s*(?:用\s*)?" + _ZH_NOT_ADVERB + r"[\u4e00-\u9fff]{2,5}"
)
# A clause that names a new value the owner changed to: "改用 Y", "换成 Y", "现在用 Y".
# A habit that ended, said with a time word before the verb: "我以前用 X", "过去喜欢 X",
# "原来一直在用 X" (the word opens the sentence or follows 我 or a clause break, so a
# condition such as "提交之前用 X" stays a habit).
ZH_ENDED_HABIT = (
    r"(?:^|(?<=我)|(?<=[，,；;。！？!?\s]))(?:以前|之前|从前|过去|曾经|原来|原先|早先|以往|当年)"
    r"(?:我)?(?:都|一直|也|还|总是|常常|经常|一般|主要)?(?:是|在)?(?:用|使用|喜欢|习惯用?|偏好|爱用)"
)
ZH_SWITCH_CLAUSE = (
    r"(?:我)?(?:现在|以后|已经|都)*(?:改|换|切|转|迁)(?:成|到|用|为|去)"
    r"|(?:我)?现在(?:都|一直)?(?:用|在用)"
)
ZH_NEGATION_EXEMPT = (
    ZH_CONTRAST,
    ZH_CONTRAST_CJK,
    r"不过|不错|不断|不同|不少|差不多|不管|不仅|不但|不只|不光|对不起|不好意思|了不起|不得不"
    r"|忍不住|要不然|不然|不久|不论|不一定|不用谢|是不是|要不要|能不能|会不会|好不好|可不可以"
    r"|对不对|行不行|用不用|该不该|应不应该|有没有|没问题|没关系|别人|别的|特别|区别|分别|告别"
    r"|类别|级别|性别|识别|个别|差别|别名|别忘|未来|不要忘|(?:别|不要)让我忘",
    # a change of topic or a vouching aside before the claim: "算了不说这个，我一直用 X",
    # "不是开玩笑，我每天都跑步"
    r"(?:算了|好了|先)?不(?:说|提|聊|扯|管)(?:这个|那个|了|这些)|不是开玩笑|没开玩笑|说真的",
    # refusing to change reinforces the claim: "我一直用深色主题，从来不换"
    r"(?:从来|从不|绝不|永远)?不(?:会)?(?:换|变|改)(?![成到用为])|没(?:换|变|改)过",
    # a switch: the negation is about the old value, the clause after it names the new one
    # ("不再用 X 了，改用 Y", "X 不用了，现在用 Y")
    r"(?:[^，,；;。！？!?—]|[!?](?=\w))*(?:不再|不|" + ZH_ENDED_HABIT + r")(?:用|使用)?"
    r"(?:[^，,；;。！？!?—]|[!?](?=\w))*"
    r"[，,；;—–-]+\s*(?=" + ZH_SWITCH_CLAUSE + r")",
)
ZH_NEGATED = (
    r"不|没|别|未|勿|莫|甭|毋|无法|讨厌|反感|拒绝|并非|绝非|决非|停用|弃用|戒掉",
    ZH_ENDED_HABIT,  # a habit that ended says nothing of today
    # every text is folded to simplified first (memwarden_shared.text.fold, SCRIPT), so 討厭, 沒 and
    # 並非 meet these cues too; Cantonese: 唔 (not), 冇 (have not), 咪 (don't), 憎 (hate)
    r"唔(?!该|紧要)|冇|咪(?:用|开|搞|再|理)|憎|(?<!请)无(?!论|限|线|缝|人机|头|服务器|障碍|损|敌|聊)",
    # aversion and leaving something behind
    r"厌恶|厌烦|厌倦|嫌(?!疑)|恨|受够|抗拒|抵触|排斥|鄙视|看不惯|烦死|戒(?:了|咗|掉)|丢掉|换掉|卸载"
    r"|弃坑|拒用|懒得|腻(?:了|味|咗)|用腻|(?:好|很|太|真)烦|烦人",
)
ZH_ONE_TIME = (
    r"这次|这一次|这回|本次|此次|这一回|暂时|临时|暂且|姑且|今天先|今天就|这个任务|本任务"
    r"|这个会话|本会话|当前任务|一次性|先这样",
)
# "先" is "for now" ("先用 npm") or "first" ("先给结论再给细节"); see classifier._zh_for_now.
ZH_XIAN_COMPOUNDS = (
    r"首先|优先|事先|预先|原先|最先|领先|率先|抢先|争先|祖先|起先|早先|先生|先前|先进|先后"
    r"|先天|先锋|先例|先知|先驱|先行",
)
# ... or a general condition: "回答时先给结论", "提交前先跑测试".
ZH_HABIT_BEFORE_XIAN = (
    r"一直|总是|习惯|平时|平常|通常|一般|往往|每天|每次|每当|向来|一向|都|偏好|喜欢|规矩|原则"
    r"|(?<!暂)时\s*$|的时候|之前|前\s*$"
)
ZH_SEQUENCE_AFTER_XIAN = r"再(?!说|看|议|定|考虑|决定|讨论|商量)|然后|之后|接着|随后|才"
ZH_HYPOTHETICAL_EXEMPT = (
    r"如果可以的话|如果可以|可以的话|如果方便的话|方便的话|如果需要的话|需要的话",
    # a wish about how to talk with the assistant is how the owner wants replies, not a
    # wish of the moment: "我想用中文交流", "我想用英文和你沟通" (issue 25)
    r"想用[^，,。；;！？!?]{1,8}?(?:和你|跟你|与你|同你)?(?:交流|沟通|聊天?|对话|回复|回答|说话)",
)
ZH_HYPOTHETICAL = (
    r"要是|如果|假如|假设|万一|倘若|若是|如若|要不是|设想|想象一下|的话",
    # a wish ("我宁愿用 X", "我更想用 X", "我想用 X") is not a standing preference
    r"宁愿|宁可|(?:更|倒|还是|比较|其实)想|(?<![不别没])想(?:用|试)",
)
ZH_QUESTION = (
    r"[吗嘛么呢][\s。.!~～]*$",
    r"是不是|要不要|能不能|会不会|好不好|可不可以|对不对|行不行|用不用|该不该|应不应该|有没有"
    r"|是否|请问|为什么|怎么办|(?<!不)怎么|如何|怎样",
)
ZH_REPORTED = (
    r"^(?:我的?|我们的?|他的|她的)?(?:一个|一位|有个|有位|那个|这个)?(?:" + ZH_PERSON + ")",
    r"^(?:他|她|他们|她们|它们)",
    r"(?:(?:" + ZH_PERSON + r")|(?<![其吉])他|她)(?:们)?(?:说|告诉我|认为|觉得|提到|表示|讲|称)",
    # a name before a verb of saying: "小李觉得我喜欢深色", "老王说…"
    # (a head opening with a preposition addresses someone: "跟我说话…" is "talk with me")
    r"^(?!我|你|您|今天|昨天|明天|刚才|之前|以前|后来|然后|所以|但是|不过|其实|总之|大概|好像|感觉"
    r"|跟|和|对|给|向|同|替|帮)"
    r"(?:(?![是不也都就还又只才在要会能说讲并])[\u4e00-\u9fff]){2,3}(?:说|讲|觉得|认为|表示|提到"
    r"|告诉我|话|写道)",
    r"听说|据说|据[^,，。]{1,8}(?:说|称|讲)",
    # a claim filed for others at once: "把所有人的主题偏好都记成…", "大家的…"
    r"(?:所有人|大家|每个人|全员|全体成员|所有用户|所有成员|每位成员)(?:的|都)",
    r"该用户|这个用户|这位用户|此用户",
    # the owner's own words said elsewhere: "在会上我说了我喜欢 X", "我跟同事讲过我习惯…"
    r"我[^，,。！？!?；;你您]{0,10}?(?<!是)(?:说|讲|提到|提过|告诉[^，,。！？!?；;你您]{1,6}?|表示"
    r"|回复|回答)(?:了|过)?\s*[,，:：]?\s*我",
)
ZH_UNCERTAIN_EXEMPT = (r"尽可能|尽量",)
ZH_UNCERTAIN = (
    r"估计|可能|大概|也许|或许|好像|似乎|应该是|说不定|不确定|不一定|我觉得|我猜|猜测|怀疑"
    r"|貌似|八成|恐怕|大约|没准|兴许|不清楚|不知道|印象中|感觉是|差不多是",
)
ZH_FUTURE_PLAN = (
    # "过一阵" is "after a while" but "用过一阵子" is "used for a while": not after a verb
    r"打算|计划|准备(?!好)|考虑|想要?(?:换|改|切|试|搬|转|迁|学)|将来|过段时间"
    r"|(?<![用试学玩看写住待干做跑开听读吃穿])过一阵|改天"
    r"|有空(?:再|的时候)|迟早|早晚|回头|将要|将会|即将|到时候|等我",
    r"会(?:改|换|切|搬|转|迁|开始|去)|要(?:改|换|搬|转|迁)(?:成|到|用)",
)
ZH_SARCASM = (
    r"呵呵|可太.{1,24}了|我谢谢你|真是谢谢了|真有你的|好棒棒|可真行|真行啊|服了|太棒了呢"
    r"|真是太好了呢",
    # a joke owned up to at the end
    r"(?:开玩笑(?:的|呢|啦)?|逗你(?:的|呢|玩)?|骗你的)[\s。.!！~～]*$",
)
ZH_TRANSIENT = (
    r"我(?:现在|今天|这会儿|此刻)?(?:好|很|有点|有些|太|超|特别)?(?:累|困|饿|渴|忙|烦|难受"
    r"|不舒服|生病了|头疼|头痛)",
    r"此刻|这会儿|眼下|刚刚|刚才|这几天|这两天|这周|本周|这个星期|出差|临时目录|临时文件|/tmp/",
    r"(?<!从)(?:今天|今晚|今早|今天上午|今天下午)(?!起|开始|以后|之后)",
)
ZH_ROOT_CAUSE = (r"导致|引起|造成|引发|原因|根因|归因|怪罪",)


# --------------------------------------------------------------------------- issue 10 classes

# Incidents are states of a system, true for hours: never a memory, even when asked (seed 004
# "瞬时的故障状态"). Matched anywhere in the sentence.
EN_INCIDENT = (
    r"\b(?:is|are|was|were|went|goes|gone|has gone|keeps?|kept)\s+(?:\w+ly\s+)?(?:down|offline"
    r"|broken|unreachable|unavailable|degraded|failing|flaky|erroring|timing out|crashing"
    r"|hanging|on fire|not (?:working|loading|responding|reachable|starting|building))\b",
    r"\b(?:outage|downtime|incident|sev ?[0-3]|returning (?:5\d\d|errors?)|5\d\d(?:s| errors?)"
    r"|throwing (?:errors?|exceptions?|5\d\d)|crash(?:ed|es)"
    r"|can(?:'t|not) (?:connect|reach|log ?in)"
    r"|(?:won't|doesn't|isn't|can't) (?:start|load|connect|build|work|working|loading|respond)"
    r"|blew up|fell over|broke (?:prod|production|staging|the build|everything|the site)"
    r"|(?:took|brought|taking|bringing) (?:prod|production|staging|the site|us|it|everything) down"
    r"|is (?:red|on fire)|out of (?:disk|memory|space|quota|inodes)|disk (?:is )?full"
    r"|oom(?:ed)?)\b",
    # a passing state of a system, marked by "until … finishes", "currently", a load figure
    r"\buntil (?:the |this |that |our |my |it )?(?:[\w-]+ ){0,2}(?:finishes|finished|is done"
    r"|completes|is complete|is over|ends|lands|is fixed|is back|comes back|recovers|is resolved"
    r"|is merged|is deployed)\b",
    r"\b(?:is|are)\s+(?:currently|temporarily|still|now)\s+(?:read-only|frozen|locked|paused"
    r"|red|failing|down|slow|degraded|in maintenance|under maintenance|stuck|blocked|spiking)\b",
    r"\b(?:cpu|memory|ram|load|latency|disk|error rate)\b.{0,24}\b(?:spik(?:ed|es|ing)"
    r"|pegged|maxed|at \d+\s*%|hit \d+\s*%)",
)
ZH_INCIDENT = (
    r"挂了|挂掉|宕机|崩了|崩溃|瘫痪|连(?:不|唔)上|连接不上|访问不了|打不开|登(?:不|唔)上|登录不了"
    r"|报错|出错|故障|不可用|掉线|卡死|超时|(?<![\d.])5\d\d(?!\d)\s*(?:错误|报错|了|啦|咗)|(?:返回|报|状态码)\s*5\d\d(?!\d)|出(?:问题|事)了|跑不起来|起不来"
    r"|无法(?:访问|连接|登录|启动|使用)|不能用了?|用不了|唔work|告警|(?:挂|飘)?红了"
    r"|(?:磁盘|硬盘|空间|内存)(?:满了|不足|爆了)",
    # a system's passing state marked by 现在/目前/暂时: "CI 流水线目前是红的", "数据库现在只读",
    # "线上现在 CPU 飙到 95%" (the owner's "我现在用 vim" names no such state)
    r"(?:现在|目前|当前|眼下|暂时|这会儿?)[^，。；,;!！?？]{0,12}?(?:只读|是红的|红着|飘红|飙|满了|很慢|变慢"
    r"|卡住|卡死|不稳定|维护中?|锁住|锁定|冻结|封版|\d+(?:\.\d+)?\s*%)",
    r"(?:CPU|cpu|内存|负载|延迟|错误率)[^，。；,;]{0,8}?(?:飙|爆|打满|\d+(?:\.\d+)?\s*%)",
    r"直到.{1,16}?(?:完成|结束|修好|恢复|上线|合并)(?:为止|之前)?",
    # a system that broke: 挂了, 坏掉, Cantonese 挂咗, 冧咗
    r"(?:挂|崩|坏|死|冧|瘫|爆|炸)(?:了|咗|掉|啦)",
    # the owner's own passing state, even when asked to note it: "记一下，我现在在开会"
    r"(?:现在|正在|目前|此刻|这会儿?|而家|宜家)\s*(?:在|喺)?\s*(?:开会|忙|路上|外面|出差|休假|度假|加班"
    r"|排队|通勤|吃饭|睡觉|生病|请假|火车上|飞机上|地铁上)",
)
# Root-cause claims about an incident are excluded whatever their certainty (seed 004
# "未证实的根因"): the memory would outlive the post-mortem that corrects it.
EN_ROOT_CAUSE_CLAIM = (
    r"\broot[- ]?caus(?:e|ed|es)\b|\bpost-?mortem\b",
    r"\b(?:was|is|were|are) (?:caused|triggered) by\b",
    r"\bcaused (?:the|this|that|our|an?) (?:\w+ )?(?:outage|incident|crash|failure|bug|error"
    r"|downtime|regression)\b",
    r"\b(?:outage|incident|crash|failure|downtime|regression|breakage) (?:was|is) "
    r"(?:due to|because of|from)\b",
    r"\bthe cause of (?:the|this|that|our|last|yesterday's) \w+",
    r"\b(?:outage|incident|crash|failure|downtime|regression|breakage)\b[^.;]{0,40}"
    r"\b(?:because|due to|caused by|came from)\b",
    r"\b(?:failed|failing|broke|crashed|went down|is down|was down|died|timed out|errored"
    r"|stopped working)\b[^.;]{0,40}\b(?:because|due to|since|as)\b",
)
ZH_ROOT_CAUSE_CLAIM = (
    r"根因|根本原因|罪魁祸首|锅在|(?:故障|事故|宕机|报错|问题|bug|挂|崩)(?:的)?(?:原因|起因|诱因)",
    r"导致了?(?:这次|上次|那次)?(?:故障|宕机|事故|报错|服务|线上|挂|崩|超时|不可用)",
    r"(?:引起|造成|引发)(?:了)?(?:这次|上次|那次)?的?(?:故障|宕机|事故|报错|崩溃)",
    r"(?:失败|挂了?|崩了?|报错|故障|宕机|出错|超时|不可用)[^,，。]{0,8}(?:是因为|是由于|由于|因为)",
    # "这个 bug 是内存泄漏引起的": a cause named for a fault
    r"(?:bug|故障|事故|宕机|报错|问题|崩溃|超时)[^,，。]{0,12}是[^,，。]{1,24}(?:引起|造成|导致|引发)的",
)

# Who a claim is about. A remember-note must be about its owner (I, we), tell the assistant
# how to act (you, an imperative), or be about the owner's own systems and work ("the staging
# database is read-only on Fridays"); "remember that water boils at 100 °C" is general
# knowledge, excluded even when asked (seed 004 "通用常识").
EN_ABOUT_OWNER = (
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us|let's|you|your"
    r"|yours)\b",
    r"\bplease\s+(?!remember|note|keep in mind|don't forget|do not forget|memori[sz]e)[a-z]",
    # an imperative addressed to the assistant, after any "from now on," or "always"
    r"^(?:(?:please|from now on|going forward|from here on|by default|as a rule|in (?:the )?future"
    r"|every time|each time|when(?:ever)? \w+(?: \w+)?|for (?:all|every|any) \w+|"
    + EN_UNTIL_REVOKED
    + r")[,\s]+)*"
    r"(?:always|never|don't|do not|use|reply|answer|respond|write|call|address"
    r"|speak|keep|avoid|prefer|give|show|put|add|include|skip|format|ask|tell|send|make|run"
    r"|check|default|stick|start|end|wrap|sign|be|stop|remind|mention|suggest|try)\b",
)
# The owner's environment: systems, code, work. A definite "the staging database" is theirs.
EN_WORKSPACE = (
    r"\b(?:staging|prod|production|dev|test|qa|preprod|database|db|dbs|server|servers|cluster"
    r"|repo|repos|repository|monorepo|codebase|service|services|api|apis|endpoint|ci|cd"
    r"|pipeline|pipelines|build|builds|deploy|deploys|deployment|release|releases|branch"
    r"|branches|team|project|projects|config|configs|configuration|env|environment|bucket"
    r"|queue|host|hosts|vm|container|k8s|kubernetes|namespace|dashboard|wiki|runbook|ticket"
    r"|tickets|jira|slack|channel|sprint|standup|on-?call|pager|alert|alerts|office|vpn"
    r"|laptop|account|calendar|meeting|meetings|migration|schema|table|backup|backups|cron"
    r"|job|jobs|workflow|domain|dns|certificate|cert|cache|redis|postgres|mysql|kafka|s3)\b",
)
ZH_WORKSPACE = (
    r"测试环境|预发|生产|线上|数据库|服务器|集群|仓库|代码库|服务|接口|流水线|构建|部署|分支|团队"
    r"|项目|配置|环境|发版|上线|版本|工单|值班|告警|会议|周会|站会|办公室|公司|账号|备份|定时任务"
    r"|缓存|域名|证书|迁移",
)
# General knowledge is stated as a fact ("water boils", "Paris is"); a bare "Remember: tabs,
# not spaces." states no fact and is the owner's telegraphic preference.
EN_STATES = (
    r"\b(?:is|are|was|were|has|have|had|equals?|means?|contains?|consists?|boils?|orbits?"
    r"|rises?|sets|freezes?|melts?|revolves?|became|becomes?|can|cannot|can't|isn't|aren't"
    r"|doesn't|does|did|takes?|needs?|uses?|added|supports?|runs?|travels?|falls?|flows?"
    r"|grows?|moves?|spins?|causes?|makes?|gives?|comes?|goes?|lives?|dies|works?|starts?"
    r"|ends?|happens?|occurs?|exists?|holds?|remains?|stays?|weighs?|lasts?|invented|founded"
    r"|discovered|wrote|written|built|born|came out|comes out|released|launched|shipped"
    r"|announced|acquired|introduced|deprecated)\b",
    # "light travels …", "the sun rises …": a subject, then a verb in -s or -ed
    r"^(?:the |a |an )?\w+ \w+(?:s|ed)\b(?!\s*,)",
)
ZH_STATES = (
    r"是|有|等于|意味着|沸腾|绕|围绕|需要|可以|会|能|为|在|叫|属于|包含|升|落|流|转|位于|发明|组成|由|比"
    r"|出现|产生|导致|含有|发现|成立|诞生|发布|推出|上市|收购|问世",
)
ZH_ABOUT_OWNER = (
    r"我|咱|俺|本人|你|您",
    r"^(?:请|以后|今后|一律|总是|每次|永远|别|不要|不用|用|使用|回复|回答|叫|称呼|写|说|讲"
    r"|给|先|提醒|记得|保持|避免)",
)

# A condition that restricts the claim to some situation: "When I'm on the train, I use light
# mode" says nothing about the owner's theme elsewhere. The condition must then survive into
# the value (grounding) or the claim is not durable.
EN_CONDITION = (
    r"^(?:only\s+)?(?:when(?:ever)?|while|once|as long as|unless|until|whilst)\b"
    r"(?!\s+(?:further notice|(?:i|we) (?:say|tell you|decide) otherwise))",
    r"^(?:only\s+)?(?:at (?:work|the office|home|night|school|the weekend)"
    r"|on (?:the )?(?:weekends?|weekdays?|workdays?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
    r"|train|bus|plane|subway|road|go)"
    r"|in (?:the )?(?:mornings?|evenings?|afternoons?|office|summer|winter)|during\b)",
    r"\bonly (?:when|on|at|in|during|for|if|while|after|before|with)\b",
    r"\b(?:except|unless|but not) (?:when|on|at|in|for|during|if|while)\b",
)
ZH_CONDITION = (
    r"^(?:只有|只要|除非|一旦|每当|当|在)?[^，,。；;]{0,16}?(?:的时候|时候|之时|期间|嘅时候)",
    r"^(?:只有|只要|除非|一旦|当)",
    r"^(?:在|喺)(?:公司|家|家里|办公室|学校|外面|路上|火车上|地铁上|飞机上|车上)",
    r"^(?:上班|下班|周末|工作日|晚上|早上|白天|夜里|平日|假期|出差)",
    r"(?:只|仅)(?:在|有|于)|除了",
)

# A sentence that ends where something else begins: "My manager said:", "When I'm on the
# train,". The segmenter cuts at line breaks and semicolons, so a frame can sit alone on the
# line before the claim it governs.
OPEN_FRAME_END = r"[,:;，：；、—–-]\s*$"
# A sentence whose own content is elsewhere: "Remember this deploy key:" (a colon or a dash).
# A comma or semicolon after a complete claim ("I prefer bun for scripts; it starts fast")
# does not make the claim itself open.
OWN_CONTENT_ELSEWHERE = r"[:：—–-]\s*$"
# A subordinate or adverbial frame that needs a main clause after it: a time, place or
# restriction ("Back when I was a student", "In client presentations only", "上大学那会儿",
# "开会演示时") or a verb of saying or denying left without its object ("I wouldn't say",
# "It's a myth that", "我可没说过"). Matched on the frame without its closing punctuation.
EN_SUBORDINATE_FRAME = (
    r"^(?:back |even |only |just |except )?(?:when|whenever|while|whilst|if|unless|during|before"
    r"|after|since|once|until|as long as|in|on|at|for|with|under|outside|inside|within|whenever"
    r"|at the time|in the days|years ago|back in|back then)\b",
    r"\b(?:only|just|exclusively)$",
    r"\b(?:that|say|said|says|claim|claimed|think|believe|mean|suppose|pretend|admit|deny"
    r"|agree|insist|suggest|imply|told|tell|saying)$",
)
# A greeting or chat opener on the line before a claim governs nothing ("Hi there,", "Quick
# note:", "收到～").
GREETING = (
    r"^(?:hi|hey|hello|heya|dear|yo|howdy|greetings|good (?:morning|afternoon|evening|day)"
    r"|morning|thanks|thank you|thx|ty|cheers|ok|okay|cool|nice|great|sure|so|also|btw|fyi"
    r"|quick (?:note|one|question|update|thing))\b[\w\s!'-]{0,20}$",
    r"^(?:你好|您好|嗨|哈喽|早|早上好|下午好|晚上好|谢谢|多谢|收到|好的|好|对了|另外|补充一下|顺便说一下)",
)
ZH_SUBORDINATE_FRAME = (
    r"^(?:在|当|如果|要是|假如|假设|只有|只在|仅在|除了|以前|之前|从前|当年|那时|上学|上大学|读书|小时候)",
    r"(?:时|时候|那会儿?|那阵子?|那时|那几年|期间|的话|之前|之后|以后|以前|上|里|中|才|只)$",
    r"(?:说|讲|说过|讲过|认为|觉得|以为|承认|否认|同意|表示|是说|不是说|没说|没说过|可没说过)$",
)
# A line that opens a pasted or forwarded block: everything after it is someone else's text.
EN_FORWARD_MARKER = (
    r"forwarded message|original message|begin forwarded message|forwarded from"
    r"|^-{2,}\s*(?:forwarded|original)|^(?:from|sent|to|cc|subject|date|reply-to|fwd?|fw)\s*:",
)
ZH_FORWARD_MARKER = (
    r"转发(?:的)?(?:邮件|消息)|转发自|原始邮件|原邮件|^(?:发件人|收件人|抄送|主题|日期|发送时间|时间)\s*:",
)
# A frame that introduces pasted text or somebody's words; the lines after it, up to a blank
# line, are reported speech.
EN_PASTE_FRAME = (
    r"\b(?:here(?:'s| is| are)|below is|pasted|pasting|copied|copying|quoting|quote from"
    r"|forwarding|excerpt|transcript|chat log|log from|from the (?:doc|docs|readme|wiki|email"
    r"|ticket|thread|article|page|post|file)|the (?:doc|docs|readme|wiki|email|ticket|thread"
    r"|article|page|post|file|message|note) says|it says|they wrote|(?:he|she) wrote)\b",
    r"\b(?:said|says|wrote|writes|posted|commented|replied|asked|texted|messaged|emailed"
    r"|told me|tells me|mentioned|added|answered)\s*$",
)
ZH_PASTE_FRAME = (
    r"以下|如下|下面是|转发|转自|转载|原文|聊天记录|群聊|摘录|摘自|引用|贴一下|粘贴|复制|文档里?(?:写|说)"
    r"|(?:说|讲|话|写道|写|回复|回答|问|表示|提到|告诉我|发来|留言)\s*$",
    r"(?:面试|会议|访谈|采访|通话|电话|谈话)(?:记录|纪要|笔录|录音)|候选人|受访者|原话|逐字",
)
# A sentence announcing someone else's words: what follows it in the message is theirs, even
# after a full stop ("Here's what the candidate said in the interview. I prefer …").
EN_ANNOUNCE = (
    r"\bhere(?:'s| is| are) (?:what|how) .{1,40}\b(?:said|says|wrote|writes|told|put it"
    r"|answered|replied|asked|posted|sent)\b",
    r"\b(?:copying|pasting|quoting|forwarding|relaying|passing on|reposting)\b.{0,40}"
    r"\b(?:message|words|reply|answer|e-?mail|text|comment|note|post|dm|chat|statement|profile"
    r"|bio|form)\b",
    r"\bverbatim\b|\bword for word\b|\bin (?:his|her|their) (?:own )?words\b",
    r"^(?:\w+ )?(?:transcript|minutes|excerpt|chat log|interview notes)\b",
)
ZH_ANNOUNCE = (
    r"(?:以下|下面)是.{0,12}(?:说|写|的话|原话|回复|消息|留言|发言|记录)",
    r"转述|照搬|原样|逐字|原话",
    r"(?:面试|会议|访谈|采访|通话|电话|谈话)(?:记录|纪要|笔录|录音)(?:[:：—–-]|$)",
)
# "Name: Priya⏎Role: SRE": a "label: value" line; two of them make a pasted form or profile.
FORM_LINE = r"^\s*[^\s:：]{1,20}(?:\s[^\s:：]{1,20}){0,2}\s*[:：]\s*\S"
# "Bob: …", "[10:42] dave: …", "<mike> …", "张三：…": a chat-log line. A label that is a
# remember-cue, a correction or a setting name is the owner's own heading instead.
CHAT_LABEL = (
    r"^\s*(?:[-—–*•]+\s*)?(?:\[[^\]]{1,24}\]\s*)?(?:<([^<>]{1,32})>"
    r"|@?([A-Za-z][\w.'-]{0,30}(?:\s+[A-Za-z][\w.'-]{0,30}){0,2}(?:\s+\d{1,3})?)"
    r"(?:\s*\([^()]{1,24}\))?\s*[:：]"
    r"|([\u4e00-\u9fff·]{1,8})\s*[:：])"
)
SELF_LABEL = (
    r"^(?:note|notes|update|updated|correction|fyi|ps|pps|p\.s|reminder|remember|important"
    r"|edit|context|background|btw|tl;?dr|summary|recap|decision|preference|preferences|todo"
    r"|me|answer|question|also|and|oh|ok|okay|so|actually|info|nb|n\.b|hi|hey|hello|yes|no"
    r"|well|anyway|again|editor|ide|theme|language|timezone|name|style|shell|os|setup|rule"
    r"|rules|policy|plan|goal|status|tip|idea|reason|problem|issue|result|conclusion|warning"
    r"|caveat|disclaimer|bonus|first|second|third|finally|lastly|i)$",
    r"^(?:请?(?:帮我)?记(?:住|下|一下|着)|备注|备忘|注意|注|更正|纠正|补充|说明|提醒|提示|重要|重点|要点"
    r"|决定|偏好|更新|另外|还有|对了|顺便|总结|结论|背景|前提|需求|目标|计划|问题|答案|原因|状态"
    r"|进展|总之|其实|然后|首先|其次|最后|我|本人|你好|您好|嗯|好的|是的|不是|编辑器|主题|语言|时区"
    r"|包管理器|名字|设置|规则|原则|要求|习惯|说一下|同步一下|交代一下)$",
    # a count of what follows heads a list, it names nobody: "两件事：", "three things:"
    r"^(?:[一二两三四五六七八九十几\d]+|几)\s*(?:件事(?:情)?|点|条|项|个要点)$",
    r"^(?:two|three|four|five|a few|several|some|\d+)\s+(?:things|points|items|facts|notes)$",
)
# Who a label names: a person word, or an attribution verb at its end ("陈经理写道", "Dan said").
LABEL_ATTRIBUTION = (
    r"\b(?:wrote|writes|said|says|asked|asks|replied|replies|posted|commented|texted|messaged"
    r"|answered|added)$",
    r"(?<!我)(?<!一下)(?:说|讲|话|写道|写|问|回复|回答|表示|留言|发来)$",
)
# A project named in the sentence scopes the claim to that project (SPEC §5, issue 10).
EN_PROJECT = (
    # "for" scopes wherever it stands; "in/on/across" only when it opens the sentence ("In the
    # atlas repo I use yarn"), not as a place ("tickets live in the PLAT Jira project"). An
    # opening "In the billing service …" names a service too; "for the billing service" is
    # what a team decision is about, so "for" takes only project words.
    r"\b(?:for|within|inside)\s+(?:the\s+)?(?:project|repo|repository)\s+(?P<name>[\w.-]+)",
    r"\b(?:for|within|inside)\s+(?:the\s+)?(?P<name>[\w.-]+(?:\s+[\w.-]+)?)\s+(?:project|repo"
    r"|repository|codebase|monorepo)\b(?!s)",
    r"^(?:in|on|across)\s+(?:the\s+)?(?P<name>[\w.-]+(?:\s+[\w.-]+)?)\s+(?:project|repo"
    r"|repository|codebase|monorepo|service|microservice|app|application|module)\b(?!s)",
    r"^(?:in|on|across)\s+(?:the\s+)?(?:project|repo|repository)\s+(?P<name>[\w.-]+)",
)
ZH_PROJECT = (
    # the same for Chinese: the project opens the sentence or a clause ("在 atlas 项目里我用
    # yarn", "atlas 项目里，…"), never "配置放在 dotfiles 仓库里"
    r"(?:^|[,，;；])\s*(?:在|对于|针对|关于|喺)?\s*(?P<name>[A-Za-z0-9][\w.-]*|[\u4e00-\u9fff]{1,6}?)"
    r"\s*(?:这个)?(?:项目|仓库|代码库|工程)(?:里|中|上|里面|当中|下|的话|嘅话)?",
    # a service or module only after 在/对于 ("在计费服务里我们定了 pnpm"), never "我用手机应用记账"
    r"(?:^|[,，;；])\s*(?:在|对于|针对|喺)\s*(?P<name>[A-Za-z0-9][\w.-]*|[\u4e00-\u9fff]{1,6}?)"
    r"\s*(?:这个)?(?:服务|微服务|应用|模块)(?:里|中|上|里面|当中|下|的话|嘅话)",
)
# Words that make "project" general rather than one project: "for all my projects".
PROJECT_GENERIC = (
    r"^(?:all|any|every|each|my|our|other|side|personal|same|new|these|those|most|some|many"
    r"|your|their|his|her|work|of)\b|(?:所有|每个|任何|各个|个人|其他|我的|全部|我们的|别的|一些|各|每)",
    # a pronoun alone names no project: "我们项目决定…" is the team's own, like "our project"
    r"^(?:我们?|咱们?|你们?|他们|她们|大家|本|该|此|这|那|整个)$",
    # an activity is no name: "我做项目一般用 pnpm" is doing projects, any of them
    r"^(?:我们?|咱们?|你们?)?(?:平时|一般|通常)?(?:做|写|搞|弄|开发|带|接|跟|负责|管)$",
    # the bare word "project" names none (issue 25): a function word is no name ("For the
    # project I …", "Within a project …"), nor what "project" qualifies ("project meetings",
    # "project planning"), nor one Chinese character ("在项目里", "新项目里")
    r"^(?:i|we|you|he|she|they|it|a|an|the|this|that|and|or|but|so|then|for|in|on|at|to"
    r"|with|when|where|if|is|was)$",
    r"^(?:work|meetings?|planning|management|notes|docs?|documentation|files?|folders?"
    r"|setups?|structure|tasks?|boards?|plans?|timelines?|deadlines?|scope|budgets?|teams?"
    r"|managers?|leads?|kick-?offs?|reviews?|updates?|status|stuff|things|level|side)$",
    r"^[\u4e00-\u9fff]$",
)
# A qualifier that narrows a claim to one context without naming it (seed 002, minimal
# scope): "for this client", "on this repo", "for billing", "在这个项目里", "工作上". Such a
# claim is not user-wide; without a scope that names the context the owner decides.
# Context nouns a deictic determiner can point at.
CONTEXT_NOUNS_EN = (
    r"project|repo|repository|codebase|client|customer|account|team|job|task|workspace"
    r"|service|app|application|company|engagement|contract|ticket|branch|deployment"
    r"|environment|product|org|organisation|organization|course|class|trip|case|matter"
)
CONTEXT_NOUNS_ZH = (
    r"项目|仓库|代码库|工程|客户|账户|账号|团队|工作|任务|服务|公司|合同|产品|分支|环境|课程"
    r"|案子|单子"
)
# Domains a "for …" can confine a preference to ("email me for billing").
DOMAIN_NOUNS_EN = (
    r"billing|invoices?|invoicing|payments?|payroll|tax(?:es)?|accounting|expenses?|refunds?"
    r"|work|business|shipping|deliveries|support|compliance|legal"
)
DOMAIN_NOUNS_ZH = r"计费|账单|发票|付款|支付|报销|工资|税务|财务|工作|业务|发货|物流|售后|合规|法务"
EN_QUALIFIER = (
    r"\b(?:for|in|on|within|inside|at|with)\s+(?:this|that|the\s+current|our\s+current"
    r"|my\s+current|the\s+present)\s+(?:(?:[\w-]+\s+)?(?:" + CONTEXT_NOUNS_EN + r"))\b(?!s)",
    r"\bfor\s+(?:the\s+)?(?:client|customer|account)\s+[\w.-]+",
    # "the project" with no name is still one project: "For the project I use pnpm"
    r"\b(?:for|in|on|within|inside|across)\s+the\s+(?:project|repo|repository|codebase"
    r"|monorepo)\b(?!s|\s+(?:[a-z][\w.-]*\s+)?(?:project|repo))",
    r"\bfor\s+(?:(?:my|our|the)\s+)?(?:" + DOMAIN_NOUNS_EN + r")\b(?!\s+(?:and|or)\s)",
)
ZH_QUALIFIER = (
    r"(?:在|对于|针对|喺)?\s*(?:这个|这|该|本|当前|那个|这边的?)\s*(?:" + CONTEXT_NOUNS_ZH + r")"
    r"(?:里|中|上|里面|当中|下|的话|嘅话|这边|方面)",
    r"(?:在|对于|针对|关于|喺)?\s*(?:" + DOMAIN_NOUNS_ZH + r")(?:方面|上|里|的时候|时|相关的?事)",
)

"""Long chats of short user turns, seeded: what a user types to an assistant all day.

Each turn is one short sentence, drawn from four kinds in seven languages (English,
German, French, Spanish, Russian, Chinese, Japanese): rules ("Never use emojis."),
values that change ("My budget is now 4,180 EUR."), questions and courtesies; each gets
a short scripted answer. Values are drawn fresh every turn, so the user's statements
keep replacing each other and the reader of :mod:`ctxmgr.autocontext.standing` has
real work. Message ids are uuid-shaped and seeded: as random as a framework's, the same
on every run. Measuring code: never imported at run time.

::

    from short_turns import chat
    for turn in chat(1000, seed=7):
        turn.user, turn.answer, turn.user_id, turn.answer_id
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["KINDS", "Turn", "chat"]

KINDS = ("rule", "value", "question", "courtesy")
_WEIGHTS = (2, 3, 3, 2)

# {n}: a number, {h}:{m}: a time, {c}: a city; each language's own phrasing, not a translation
_TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "rule": ("Never use emojis.", "Keep the answers under {n} words.",
                 "Always reply in British English.", "Don't mention our competitor.",
                 "Please ask before booking anything over {n} EUR.",
                 "Never delete the backups."),
        "value": ("My budget is now {n} EUR.", "The ticket is TCK-{n}.",
                  "The meeting moved to {h}:{m}.", "We are {k} people now.",
                  "My extension is {n}.", "The order number is ORD-{n}."),
        "question": ("What is the weather like in {c}?", "Can you summarise that?",
                     "Which train gets me to {c} before {h}:{m}?", "Is that still open?",
                     "How far is {c} from here?"),
        "courtesy": ("ok thanks", "great", "perfect, go on", "sure", "thanks!"),
    },
    "de": {
        "rule": ("Bitte keine Flüge, nur Zug.", "Antworte immer auf Deutsch.",
                 "Nie mehr als {k} Hotels vorschlagen."),
        "value": ("Mein Budget liegt jetzt bei {n} Euro.", "Die Kundennummer ist KD-{n}.",
                  "Wir kommen um {h}:{m} Uhr an."),
        "question": ("Was kann man am Tag {k} in {c} unternehmen?", "Wie spät ist es dort?"),
        "courtesy": ("danke!", "super", "passt"),
    },
    "fr": {
        "rule": ("Ne réponds jamais en anglais.", "Pas plus de {k} phrases, s'il te plaît."),
        "value": ("Mon vol part à {h}:{m}.", "Le budget est de {n} euros maintenant."),
        "question": ("Que faire à {c} ce soir ?", "C'est loin d'ici ?"),
        "courtesy": ("merci", "parfait"),
    },
    "es": {
        "rule": ("Nunca uses emojis.", "No reserves nada sin preguntarme."),
        "value": ("Mi presupuesto ahora es de {n} euros.", "El pedido es PED-{n}."),
        "question": ("¿Qué me recomiendas para cenar en {c}?", "¿A qué hora abre?"),
        "courtesy": ("gracias", "vale"),
    },
    "ru": {
        "rule": ("Никогда не удаляй резервные копии.", "Отвечай коротко, не больше {k} фраз."),
        "value": ("Мой номер заказа ORD-{n}.", "Бюджет теперь {n} рублей."),
        "question": ("Какая погода в {c}?", "Сколько это стоит?"),
        "courtesy": ("спасибо", "отлично"),
    },
    "zh": {
        "rule": ("请不要使用表情符号。", "永远不要碰生产数据库。"),
        "value": ("我的预算是{n}元。", "会议改到{h}:{m}了。"),
        "question": ("{c}今天天气怎么样？", "这个还开着吗？"),
        "courtesy": ("谢谢", "好的"),
    },
    "ja": {
        "rule": ("絵文字は使わないでください。", "本番データベースには絶対に触らないでください。"),
        "value": ("予算は{n}円に変わりました。", "到着は{h}:{m}です。"),
        "question": ("{c}で何を見るべきですか？", "それはまだ開いていますか？"),
        "courtesy": ("ありがとう", "了解です"),
    },
}
_LANGUAGES = tuple(_TEMPLATES)
_LANGUAGE_WEIGHTS = (6, 2, 1, 1, 1, 1, 1)
_CITIES = ("Vienna", "Lisbon", "Kyoto", "Oslo", "Porto", "Leipzig", "Nantes", "Cusco")
_ANSWERS = ("Noted.", "Sure, I will keep that in mind.", "Done: I updated the plan.",
            "It is about {k} hours by train.", "Yes, until {h}:{m}.",
            "Here is the short version: all set.", "Understood, no changes otherwise.")


@dataclass(frozen=True, slots=True)
class Turn:
    """One user turn and the assistant's scripted answer to it."""

    user: str
    answer: str
    kind: str
    """One of :data:`KINDS`."""
    language: str
    user_id: str
    answer_id: str


def chat(turns: int, *, seed: int = 7) -> Iterator[Turn]:
    """``turns`` short user turns, each with its answer; the same for the same seed (a
    longer chat starts with the turns of a shorter one)."""
    rng = random.Random(seed)

    def fill(template: str) -> str:
        return template.format(n=rng.randrange(100, 99_999), k=rng.randrange(2, 9),
                               h=rng.randrange(6, 23), m=f"{rng.randrange(0, 60):02d}",
                               c=rng.choice(_CITIES))

    def an_id() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    for _ in range(turns):
        language = rng.choices(_LANGUAGES, _LANGUAGE_WEIGHTS)[0]
        kind = rng.choices(KINDS, _WEIGHTS)[0]
        user = fill(rng.choice(_TEMPLATES[language][kind]))
        answer = fill(rng.choice(_ANSWERS))
        yield Turn(user=user, answer=answer, kind=kind, language=language,
                   user_id=an_id(), answer_id=an_id())

"""The values planted items carry: drawn at random, unique in their session.

An item counts as kept when its value strings occur verbatim in a prompt, so a
value must not be able to occur there by chance. Every kind below is drawn from
a large space (amounts, ids, names, paths, hosts, dates ...), the generator
re-draws a value that occurs anywhere else in its session, and every value holds
a character that is not a lowercase hex digit (:func:`is_distinctive`): no offload
id, uuid or hash that a compressor writes can contain one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

__all__ = ["VALUE_KINDS", "ValueKind", "draw", "is_distinctive"]

ValueKind = str
"""A key of :data:`VALUE_KINDS` (``"money"``, ``"percent"``, ``"count:rows"`` ...)."""

_HEX = re.compile(r"[0-9a-f]+")

FIRST = ("Ingrid", "Tavish", "Priya", "Mateus", "Oluwaseun", "Margit", "Rafferty", "Yusuf",
         "Svetlana", "Kenji", "Ximena", "Torvald", "Imogen", "Lucien", "Zainab", "Bartosz",
         "Fenella", "Hamish", "Noemi", "Ruairi", "Wilhelmina", "Jovan", "Soraya", "Kwame",
         "Ottilie", "Leopold", "Marisol", "Thaddeus", "Anouk", "Casimir")
LAST = ("Halvorsen", "Okonkwo", "Castellanos", "Wojcik", "Thistlewood", "Nakamura",
        "Abernathy", "Lindqvist", "Obradovic", "Fairweather", "Quaresma", "Dunleavy",
        "Szymanski", "Moreau-Vance", "Achterberg", "Pemberton", "Iwasaki", "Ravensworth",
        "Kowalczyk", "Esterhazy", "Mbeki", "Vantongeren", "Holloway", "Strozzi", "Yilmaz")
WORDS = ("kestrel", "juniper", "basalt", "orchid", "tundra", "marlin", "quarry", "sorrel",
         "tamarind", "wombat", "ptarmigan", "vellum", "larkspur", "hollow", "sparrow",
         "cobalt", "rowan", "piston", "gannet", "lantern", "moraine", "osprey", "quill",
         "thimble", "walrus", "zephyr", "bramble", "granite", "heron", "minnow")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
TIMEZONES = ("Europe/Lisbon", "America/Denver", "Asia/Kolkata", "Australia/Perth",
             "America/Halifax", "Europe/Helsinki", "Asia/Singapore", "Pacific/Auckland",
             "America/Bogota", "Africa/Nairobi", "Europe/Warsaw", "Asia/Manila")
LANGUAGES = ("Portuguese", "Norwegian", "Polish", "Turkish", "Czech", "Swedish", "Romanian",
             "Indonesian", "Hungarian", "Catalan", "Tagalog", "Slovenian")
DOMAINS = ("northwind-trading", "bluepeak-outfitters", "gracelane-mfg", "tidewater-labs",
           "copperleaf-co", "ironbark-retail", "saltmarsh-media", "fernhill-logistics")


def _amount(rng: random.Random) -> str:
    cents = rng.random() < 0.15
    value = rng.randrange(24, 1980) * 5 + (rng.randrange(1, 99) / 100 if cents else 0)
    text = f"{value:,.2f}" if cents else f"{int(value):,}"
    return rng.choice(("${}", "${}", "€{}", "£{}", "{} USD", "{} EUR")).format(text)


def _percent(rng: random.Random) -> str:
    n = rng.randrange(3, 70)
    return rng.choice((f"{n}%", f"{n}%", f"{n}.5%", f"{n} percent"))


def _count(unit: str, lo: int, hi: int, *, decimal: bool = False) -> Callable[[random.Random],
                                                                           str]:
    def draw_count(rng: random.Random) -> str:
        if decimal:
            return f"{rng.randrange(lo * 10, hi * 10) / 10:.1f} {unit}"
        return f"{rng.randrange(lo, hi):,} {unit}"
    return draw_count


def _code(prefix: str, digits: int = 5) -> Callable[[random.Random], str]:
    def draw_code(rng: random.Random) -> str:
        return f"{prefix}-{rng.randrange(10 ** (digits - 1), 10 ** digits)}"
    return draw_code


def _name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _email(rng: random.Random) -> str:
    return (f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower().replace('-', '')}"
            f"{rng.randrange(2, 99)}@{rng.choice(DOMAINS)}.com")


def _date(rng: random.Random) -> str:
    month, day = rng.randrange(1, 13), rng.randrange(1, 29)
    if rng.random() < 0.5:
        return f"2025-{month:02d}-{day:02d}"
    suffix = "th" if 11 <= day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{MONTHS[month - 1]} {day}{suffix}"


def _time(rng: random.Random) -> str:
    hour, minute = rng.randrange(0, 24), rng.choice((5, 10, 15, 20, 25, 35, 40, 45, 50, 55))
    if rng.random() < 0.5:
        return f"{hour:02d}:{minute:02d} UTC"
    return f"{hour % 12 or 12}:{minute:02d} {'am' if hour < 12 else 'pm'}"


def _file(rng: random.Random) -> str:
    a, b = rng.sample(WORDS, 2)
    return rng.choice((f"/srv/{a}-{rng.randrange(10, 99)}/{b}.yaml",
                       f"~/projects/{a}/{b}_{rng.randrange(100, 999)}.env",
                       f"/etc/{a}/{b}-{rng.randrange(10, 99)}.conf"))


def _dir(rng: random.Random) -> str:
    a, b = rng.sample(WORDS, 2)
    return rng.choice((f"/srv/{a}-{rng.randrange(10, 99)}/{b}/",
                       f"/var/lib/{a}/{b}-exports-{rng.randrange(10, 99)}",
                       f"s3://{a}-{b}-{rng.randrange(100, 999)}/exports"))


def _host(rng: random.Random) -> str:
    return rng.choice((f"pg-prod-{rng.choice(WORDS)}{rng.randrange(2, 9)}",
                       f"{rng.choice(WORDS)}-{rng.randrange(10, 99)}.internal",
                       f"db-{rng.choice(WORDS)}-primary-{rng.randrange(2, 9)}"))


def _ip(rng: random.Random) -> str:
    return f"10.{rng.randrange(16, 250)}.{rng.randrange(1, 250)}.{rng.randrange(2, 250)}"


def _version(rng: random.Random) -> str:
    return f"v{rng.randrange(2, 19)}.{rng.randrange(0, 40)}.{rng.randrange(1, 30)}"


def _branch(rng: random.Random) -> str:
    return f"release/{rng.choice(WORDS)}-{rng.randrange(10, 99)}"


def _table(rng: random.Random) -> str:
    a, b = rng.sample(WORDS, 2)
    return f"{a}_{b}_{rng.randrange(10, 99)}"


def _cluster(rng: random.Random) -> str:
    return f"k8s-{rng.choice(WORDS)}-{rng.choice(('east', 'west', 'north', 'south'))}"


def _phone(rng: random.Random) -> str:
    return f"+44 20 7946 {rng.randrange(1000, 9999)}"


def _vat(rng: random.Random) -> str:
    return f"GB{rng.randrange(100_000_000, 999_999_999)}"


def _repo(rng: random.Random) -> str:
    a, b = rng.sample(WORDS, 2)
    return f"github.com/{a}-labs/{b}-{rng.randrange(10, 99)}"


def _suite(rng: random.Random) -> str:
    a, b = rng.sample(WORDS, 2)
    return f"tests/{a}_{b}"


def _schema(rng: random.Random) -> str:
    return f"schema rev {rng.randrange(20, 400)}"


def _tag(rng: random.Random) -> str:
    return f"triage-{rng.choice(WORDS)}-{rng.choice(WORDS)}"


def _codename(rng: random.Random) -> str:
    a, b = rng.sample(WORDS, 2)
    return f"{a.capitalize()}{b.capitalize()}"


VALUE_KINDS: dict[ValueKind, Callable[[random.Random], str]] = {
    "money": _amount,
    "percent": _percent,
    "date": _date,
    "time": _time,
    "name": _name,
    "email": _email,
    "file": _file,
    "dir": _dir,
    "host": _host,
    "ip": _ip,
    "version": _version,
    "branch": _branch,
    "table": _table,
    "cluster": _cluster,
    "phone": _phone,
    "vat": _vat,
    "repo": _repo,
    "suite": _suite,
    "schema": _schema,
    "tag": _tag,
    "codename": _codename,
    "timezone": lambda rng: rng.choice(TIMEZONES),
    "language": lambda rng: rng.choice(LANGUAGES),
    "order": _code("ORD"),
    "invoice": _code("INV"),
    "account": _code("AC", 6),
    "ticket": _code("TCK"),
    "subscription": _code("SUB"),
    "warehouse": _code("WH", 4),
    "cost_center": _code("CC", 4),
    "count:rows": _count("rows", 500, 25_000),
    "count:seconds": _count("seconds", 15, 300),
    "count:attempts": _count("attempts", 2, 12),
    "count:words": _count("words", 60, 450),
    "count:MB": _count("MB", 5, 500),
    "count:workers": _count("workers", 2, 48),
    "count:minutes": _count("minutes", 10, 240),
    "count:emails": _count("emails", 200, 9000),
    "count:ms": _count("ms", 60, 950),
    "count:tickets": _count("open tickets", 5, 180),
    "count:customers": _count("customers", 40, 2500),
    "count:load": _count("seconds", 1, 6, decimal=True),  # 1.0 to 5.9
    "count:bullets": _count("bullet points", 3, 10),
}


def is_distinctive(value: str) -> bool:
    """A value no hex id can contain: it holds a character outside ``[0-9a-f]``."""
    return _HEX.fullmatch(value) is None


def draw(kind: ValueKind, rng: random.Random, taken: set[str]) -> str:
    """A fresh value of ``kind``: not in ``taken``, neither inside nor around any value in
    it (``$65`` and ``$650`` never meet in one session), and distinctive."""
    maker = VALUE_KINDS[kind]
    for _ in range(200):
        value = maker(rng)
        if is_distinctive(value) and not any(value in t or t in value for t in taken):
            taken.add(value)
            return value
    raise RuntimeError(f"could not draw a fresh {kind} value")  # pragma: no cover

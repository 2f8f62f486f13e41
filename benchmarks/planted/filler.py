"""What surrounds the planted items: chatter, assistant replies, pasted text, tool steps.

Filler is where a selection goes wrong, so it is varied on purpose: courtesies,
questions, requests and status chatter that look like instructions but carry no
planted value, numbers that are not values (hold times, queue lengths), long
pasted emails and logs, and assistant replies from a bare acknowledgement to a
numbered plan. Tool steps give shell output, file reads, JSON lookups and
errors. Nothing here carries a planted value; the generator checks it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence

from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock, text_message
from planted.values import WORDS

__all__ = [
    "SYSTEM_PROMPTS",
    "TASKS",
    "assistant_reply",
    "lead_in",
    "log_lines",
    "paste",
    "tail",
    "tool_step",
    "user_filler",
]

SYSTEM_PROMPTS = {
    "chat": ("You are a support assistant for an online store. Be concise and accurate.",
             "You help a small operations team with orders, billing and accounts. Keep "
             "answers short.",
             "You are a helpful assistant for a customer success team."),
    "tools": ("You are a coding and operations agent with shell, file and HTTP tools. Work "
              "step by step and report what you find.",
              "You are an engineering assistant. Use the tools to inspect and fix the "
              "system; explain what you did.",
              "You operate the team's services through tools. Be careful and report "
              "clearly."),
}
TASKS = {
    "chat": ("Hi, I need help sorting out a delayed order and a couple of billing questions.",
             "Hello, can you help me clean up our support queue this afternoon?",
             "Hi there, I'm handling escalations today and could use a hand.",
             "Good morning, I need help preparing replies for a few unhappy customers."),
    "tools": ("The nightly export job failed again. Please find out why and fix it.",
              "Our checkout service throws errors since yesterday's deploy; investigate and "
              "fix it.",
              "Please get the billing sync working again and tell me what broke.",
              "Help me migrate the reporting service to the new database and verify it."),
}

_COURTESIES = ("ok", "thanks!", "great, go on", "perfect", "got it, thanks", "sounds good",
               "cool", "ok thx", "alright", "nice, thank you", "yes please", "sure",
               "makes sense", "👍", "ok, next", "lovely", "that works", "fine by me")
_QUESTIONS = ("what's the status now?", "how long will that take?", "did that work?",
              "any update?", "is there anything you need from me?",
              "can you explain what happened there?", "why did it fail?",
              "where are we with this?", "what do you suggest?", "is that normal?",
              "Which of these should we do first?", "Does the customer need to do anything?",
              "Is this something we've seen before?", "what would you do in my place?")
_REQUESTS = ("can you check the shipping page again?", "please draft a short reply to the "
             "customer", "let's look at the logs next", "summarize where we are",
             "try again please", "can you look at the other order too",
             "go ahead with the next step", "please double-check that", "walk me through it",
             "Make the reply a bit friendlier.", "Could you shorten that?",
             "Let's move on to the next ticket.", "Please explain that in plain words.",
             "Check whether the payment went through.", "Be a bit more careful with that one.")
_STATUS = ("I'm back, sorry, had a meeting.", "The customer called again.",
           "My manager is asking about this.", "I'll be offline for a bit after this.",
           "The portal is slow today.", "I just refreshed the dashboard.",
           "We got another complaint about shipping.", "The vendor replied but it was vague.",
           "Someone from finance just pinged me.", "The queue is getting long again.",
           "I forwarded your draft to the team.", "Still waiting on the warehouse.")
_SMALL_TALK = ("it's pouring here", "long week, honestly", "coffee time",
               "haha yes", "I'm learning a lot from this", "you're fast today",
               "Lunch was terrible today.", "Fridays are always like this.",
               "My cat just walked over the keyboard.")
_NUMBERS: tuple[Callable[[random.Random], str], ...] = (
    lambda r: f"I've been on hold with the carrier for {r.randrange(5, 90)} minutes now.",
    lambda r: f"We have {r.randrange(3, 60)} other tickets today.",
    lambda r: f"The queue shows {r.randrange(2, 40)} people waiting.",
    lambda r: f"It's {r.randrange(1, 12)}:{r.randrange(10, 59)} here, so not much time left.",
    lambda r: f"My laptop is at {r.randrange(5, 30)}% battery, bear with me.",
    lambda r: f"That's the {r.randrange(3, 9)}th complaint this week.",
    lambda r: f"The old order from {r.randrange(2015, 2022)} is unrelated, ignore it.",
    lambda r: f"The last invoice was ${r.randrange(20, 400)}.{r.randrange(10, 99)} and it's "
              "already paid.",
    lambda r: f"Order {r.randrange(100_000, 999_999)} was a different customer.",
    lambda r: f"The call with finance is at {r.randrange(1, 12)}:{r.randrange(10, 59)}, "
              "I'll drop off then.",
    lambda r: f"We shipped {r.randrange(100, 5000):,} parcels last month, a record.",
    lambda r: f"My extension is {r.randrange(100, 999)} if you need to reach me.",
    lambda r: f"Only {r.randrange(2, 40)}% of the tickets today are about shipping.",
)

_LEADS = ("Quick one.", "Okay, another thing.", "Before I forget:", "Also,",
          "Right, so.", "Thanks for the update on the shipping thing.",
          "Sorry, I was in a meeting.", "One more detail from my side.",
          "I just talked to my manager.", "Reading back through the thread,")
_TAILS = ("Anyway, what did the logs say?", "Thanks!", "Let me know if that's unclear.",
          "Back to the refund question now.", "Does that make sense?",
          "I'll be around for another hour.", "Carry on with the rest.",
          "Sorry for the back and forth.", "OK, what's next?")

_ACKS = ("Acknowledged. Continuing with the plan.", "Got it.", "Understood, I'll keep that "
         "in mind.", "Noted.", "Sure, on it.", "Thanks, that helps.", "Okay, I'll take that "
         "into account.", "Will do.", "Of course.", "Understood.", "Thanks for clarifying.")
_EXPLAIN = (
    "The delay comes from the carrier's sorting center, which is backed up this week.",
    "That error usually means the session expired before the form was submitted.",
    "The payment provider retries failed charges automatically for a few days.",
    "Refunds show up on the customer's statement after the bank processes them.",
    "The dashboard caches figures, so a refresh can lag behind the real numbers.",
    "I compared the two records and they differ only in the shipping address.",
    "The warehouse marks an order as packed before the label is printed.",
    "Customers often see two pending charges when a card is authorised twice.",
    "The account was created through the old signup flow, which skipped verification.",
    "It looks like the confirmation email went to the spam folder.",
    "The vendor's API rate-limits bursts, which explains the intermittent failures.",
    "That setting only applies to new orders, not to ones already in progress.",
    "Nothing in the history suggests a duplicate account.",
    "The tracking page updates once the parcel is scanned at the next depot.",
    "I checked the notes and nobody has contacted the customer yet.",
)
_STEPS = ("Check the order history for anything unusual.", "Confirm the customer's details.",
          "Draft a reply and send it to you for review.", "Look at the payment records.",
          "Ask the warehouse for a status update.", "Update the ticket with what we found.",
          "Close the duplicate ticket.", "Verify the fix on a test account.",
          "Write a short summary for the team.", "Escalate to billing if it is still open.",
          "Re-run the failed step.", "Compare the logs before and after the change.")
_CLARIFY = ("Do you want me to contact the customer directly, or draft something first?",
            "Should I include the order history in the reply?",
            "Would you like a short or a detailed summary?",
            "Shall I go ahead, or do you want to review it first?")


def user_filler(rng: random.Random) -> str:
    """One short user turn that carries no planted value."""
    kind = rng.choices(("courtesy", "question", "request", "status", "small talk", "number"),
                       (5, 4, 4, 3, 2, 4))[0]
    if kind == "number":
        return rng.choice(_NUMBERS)(rng)
    return rng.choice({"courtesy": _COURTESIES, "question": _QUESTIONS, "request": _REQUESTS,
                       "status": _STATUS, "small talk": _SMALL_TALK}[kind])


def lead_in(rng: random.Random) -> str:
    """A sentence that can open a longer message."""
    return rng.choice(_LEADS)


def tail(rng: random.Random) -> str:
    """A sentence that can close a longer message."""
    return rng.choice(_TAILS + _STATUS)


def assistant_reply(rng: random.Random, *, after_instruction: bool = False) -> str:
    """An assistant turn: an acknowledgement (mostly, after an instruction), an
    explanation, a plan or a question back."""
    weights = (12, 3, 1, 1) if after_instruction else (3, 5, 2, 1)
    kind = rng.choices(("ack", "explain", "plan", "clarify"), weights)[0]
    if kind == "ack":
        return rng.choice(_ACKS)
    if kind == "explain":
        return " ".join(rng.sample(_EXPLAIN, rng.randrange(1, 4)))
    if kind == "plan":
        steps = rng.sample(_STEPS, rng.randrange(3, 6))
        return "Here's the plan:\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
    return rng.choice(_CLARIFY)


_EMAIL_LINES = (
    "I ordered three weeks ago and still have not received anything.",
    "The tracking link says the parcel is in transit but it has not moved for days.",
    "I was charged twice and nobody has answered my last two emails.",
    "Your website says delivery takes five working days, which is clearly not the case.",
    "I need this sorted before the end of the month because it is a gift.",
    "Please let me know what you can do, otherwise I will dispute the charge.",
    "I have been a customer for years and this is the first time I am this disappointed.",
    "The item that did arrive was the wrong size and the box was damaged.",
    "I tried calling but the line was busy every time.",
    "Could you also check why my loyalty points disappeared?",
)
_POLICY_LINES = (
    "Orders may be returned within the return period if unused and in original packaging.",
    "Refunds are issued to the original payment method once the return is inspected.",
    "Shipping costs are not refundable unless the item arrived damaged or incorrect.",
    "Customers are notified by email at each stage of the return process.",
    "Exchanges are subject to stock availability at the time of the request.",
    "Promotional discounts cannot be combined with loyalty vouchers.",
    "Disputed charges are reviewed by the billing team within a few working days.",
)
_LOG_LEVELS = ("INFO", "WARN", "ERROR", "DEBUG")
_LOG_EVENTS = ("payment-gateway retry scheduled", "webhook delivered", "cache miss for key",
               "order state changed", "email queued", "connection reset by peer",
               "slow query detected", "token refreshed", "job finished", "lock acquired")


def paste(rng: random.Random) -> str:
    """A long pasted text: a customer's email, a policy excerpt or a log."""
    kind = rng.choice(("email", "policy", "log"))
    if kind == "email":
        lines = rng.sample(_EMAIL_LINES, rng.randrange(4, 8))
        return ("Here's what the customer wrote:\n\nHello,\n\n" + " ".join(lines)
                + "\n\nRegards,\nA frustrated customer")
    if kind == "policy":
        lines = rng.sample(_POLICY_LINES, rng.randrange(4, 7))
        return "Pasting our policy text for context:\n\n" + "\n\n".join(lines)
    rows = log_lines(rng, rng.randrange(8, 16))
    return "This is from the app log, no idea what it means:\n" + "\n".join(rows)


def log_lines(rng: random.Random, count: int) -> list[str]:
    """``count`` lines of an application log (timestamp, level, event, request id)."""
    return [f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T"
            f"{rng.randrange(0, 24):02d}:{rng.randrange(0, 60):02d}:{rng.randrange(0, 60):02d}Z "
            f"{rng.choice(_LOG_LEVELS)} {rng.choice(_LOG_EVENTS)} "
            f"req={rng.getrandbits(32):08x}" for _ in range(count)]


# ---------------------------------------------------------------- tool steps

_FILES = ("src/export/job.py", "src/billing/sync.py", "config/settings.yaml",
          "src/checkout/handlers.py", "scripts/deploy.sh", "src/reporting/queries.sql",
          "README.md", "src/common/retry.py", "tests/test_export.py", "docker-compose.yml")
_Call = tuple[str, dict[str, object], str, bool]
"""A tool call made up: the tool's name, its arguments, its output and whether it failed."""
_SERVICES = ("export-worker", "billing-sync", "checkout-api", "reporting", "scheduler")


def _call_id(rng: random.Random) -> str:
    return f"call_{rng.getrandbits(64):016x}"


def _ls(rng: random.Random) -> _Call:
    folder = rng.choice(("src/export", "src/billing", "config", "scripts", "logs"))
    rows = [f"-rw-r--r--  1 app app {rng.randrange(200, 90_000):>6} Mar {rng.randrange(1, 29):>2} "
            f"{rng.randrange(0, 24):02d}:{rng.randrange(0, 60):02d} {w}.{ext}"
            for w, ext in zip(rng.sample(WORDS, 6), rng.choices(("py", "yaml", "log", "json"),
                                                                 k=6), strict=True)]
    return "bash", {"command": f"ls -la {folder}"}, "total 48\n" + "\n".join(rows), False


def _git_log(rng: random.Random) -> _Call:
    verbs = ("fix", "add", "refactor", "bump", "revert", "tune")
    rows = [f"{rng.getrandbits(28):07x} {rng.choice(verbs)} {rng.choice(WORDS)} "
            f"{rng.choice(('handling', 'config', 'tests', 'retries', 'logging'))}"
            for _ in range(8)]
    return "bash", {"command": "git log --oneline -8"}, "\n".join(rows), False


def _pytest(rng: random.Random) -> _Call:
    test = rng.choice(("tests/test_export.py", "tests/test_sync.py", "tests/test_api.py"))
    passed, failed = rng.randrange(8, 60), rng.randrange(0, 3)
    out = "." * min(passed, 40) + "F" * failed
    if failed:
        out += (f"\n\n____ test_{rng.choice(WORDS)}_roundtrip ____\n"
                f"    assert result.status == \"done\"\nE   AssertionError: assert "
                f"'pending' == 'done'\n{test}:{rng.randrange(20, 300)}: AssertionError")
    out += f"\n{passed} passed, {failed} failed in {rng.randrange(1, 30)}.{rng.randrange(10, 99)}s"
    return "bash", {"command": f"python -m pytest {test} -q"}, out, failed > 0


def _grep(rng: random.Random) -> _Call:
    word = rng.choice(("timeout", "retry", "export_path", "batch", "customer_id"))
    rows = [f"{rng.choice(_FILES)}:{rng.randrange(5, 400)}:    {word} = "
            f"{rng.choice(('settings.get', 'os.environ.get', 'config.lookup'))}"
            f"(\"{word.upper()}\")" for _ in range(rng.randrange(3, 8))]
    return "bash", {"command": f"grep -rn {word} src/"}, "\n".join(rows), False


def _tail_log(rng: random.Random) -> _Call:
    service = rng.choice(_SERVICES)
    rows = [f"[{rng.randrange(0, 24):02d}:{rng.randrange(0, 60):02d}:{rng.randrange(0, 60):02d}] "
            f"{rng.choice(_LOG_LEVELS)} {service}: {rng.choice(_LOG_EVENTS)} "
            f"id={rng.getrandbits(24):06x}" for _ in range(rng.randrange(8, 18))]
    return "bash", {"command": f"tail -n 20 /var/log/{service}.log"}, "\n".join(rows), False


def _read_file(rng: random.Random) -> _Call:
    path = rng.choice(_FILES)
    if path.endswith(".yaml") or path.endswith(".yml"):
        body = "\n".join(f"{w}:\n  enabled: {rng.choice(('true', 'false'))}\n  level: "
                         f"{rng.randrange(1, 9)}" for w in rng.sample(WORDS, 5))
    else:
        names = rng.sample(WORDS, 4)
        body = "\n\n".join(
            f"def {n}_step(payload):\n    \"\"\"Handle one {n} record.\"\"\"\n"
            f"    if not payload:\n        return None\n    return transform(payload, "
            f"mode=\"{rng.choice(WORDS)}\")" for n in names)
    return "read_file", {"path": path}, body, False


def _http(rng: random.Random) -> _Call:
    n = rng.randrange(100_000, 999_999)
    if rng.random() < 0.2:
        return ("http_get", {"url": f"https://api.internal/orders/{n}"},
                json.dumps({"error": "not_found", "status": 404, "id": n}), True)
    record = {"id": n, "status": rng.choice(("pending", "shipped", "on_hold", "delivered")),
              "items": [{"sku": f"{rng.choice(WORDS)}-{rng.randrange(1, 99)}",
                         "qty": rng.randrange(1, 5)} for _ in range(rng.randrange(1, 4))],
              "updated": f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
              "notes": rng.choice(("", "customer called", "address corrected"))}
    url = f"https://api.internal/orders/{n}"
    return "http_get", {"url": url}, json.dumps(record, indent=2), False


def _search(rng: random.Random) -> _Call:
    query = rng.choice(("export failed", "duplicate charge", "timeout", "missing parcel"))
    hits = [{"ticket": rng.randrange(1000, 9999), "title": f"{query} ({rng.choice(WORDS)})",
             "state": rng.choice(("open", "closed"))} for _ in range(rng.randrange(2, 6))]
    return "search_tickets", {"query": query}, json.dumps(hits), False


def _error(rng: random.Random) -> _Call:
    kind = rng.randrange(3)
    if kind == 0:
        return ("bash", {"command": "./scripts/deploy.sh --dry-run"},
                "bash: ./scripts/deploy.sh: Permission denied\nexit status 126", True)
    if kind == 1:
        path = f"src/{rng.choice(WORDS)}/settings.py"
        return ("read_file", {"path": path},
                f"FileNotFoundError: [Errno 2] No such file or directory: '{path}'", True)
    module = rng.choice(WORDS)
    return ("bash", {"command": f"python -m {module}.cli check"},
            f"Traceback (most recent call last):\n  File \"src/{module}/cli.py\", line "
            f"{rng.randrange(10, 200)}, in main\n    run(config)\n  File \"src/{module}/"
            f"core.py\", line {rng.randrange(10, 200)}, in run\n    raise ConnectionError("
            f"\"upstream closed the connection\")\nConnectionError: upstream closed the "
            "connection\nexit status 1", True)


_TOOLS: tuple[Callable[[random.Random], _Call], ...] = (
    _ls, _git_log, _pytest, _grep, _tail_log, _read_file, _http, _search, _error)
_WEIGHTS = (2, 1, 2, 2, 2, 3, 2, 1, 1)
_INTROS = ("Let me check.", "I'll look at the logs.", "Checking the code.", "Let me verify.",
           "Looking this up.", "Next I'll inspect the config.", "")


def tool_step(rng: random.Random, new_id: Callable[[], str], *,
              intros: Sequence[str] = _INTROS) -> list[Message]:
    """One assistant message calling one tool (sometimes two at once) and the tool
    messages answering it, each call paired with its result; the assistant's words
    before the call are one of ``intros`` (in another language, say)."""
    calls = 2 if rng.random() < 0.15 else 1
    uses: list[ToolUseBlock] = []
    results: list[Message] = []
    for _ in range(calls):
        name, args, output, failed = rng.choices(_TOOLS, _WEIGHTS)[0](rng)
        cid = _call_id(rng)
        uses.append(ToolUseBlock(id=cid, name=name, input=args))
        results.append(Message(role="tool", id=new_id(), content=(ToolResultBlock(
            tool_use_id=cid, content=output, is_error=failed),)))
    return [text_message("assistant", rng.choice(intros), id=new_id(), tool_uses=uses),
            *results]

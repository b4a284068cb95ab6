"""The page speaks English and German: one catalog per language (``dorf/web/lang/*.json``).

- the catalogs hold the same keys, with the same placeholders and plural forms, and no empty text;
- every key the page's modules name is in them;
- no visible text is written into the modules: a string literal that reads like words (not a
  class name, a key, an id) fails the test unless it goes through the catalog;
- every English text the server makes (log lines, the coach's reasons, score pad rows, errors,
  levels, the default campaign sheet) is read by one of the catalog's ``server.`` templates, so
  the page can say it in German (``i18n.js`` reads them the same way as :func:`reads` here).
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from dorf.server.edge.assets import LANGUAGES, web_root

WEB = web_root()
Catalog = dict[str, Any]


@cache
def catalog(lang: str) -> Catalog:
    data: Catalog = json.loads((WEB / "lang" / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def texts(entry: Any) -> list[str]:
    """A catalog entry's texts: one, or one per plural form."""
    return list(entry.values()) if isinstance(entry, dict) else [entry]


def placeholders(entry: Any) -> set[str]:
    return {name for text in texts(entry) for name in re.findall(r"\{(\w+)\}", text)}


# --- the catalogs ---------------------------------------------------------------------------


def test_there_is_a_catalog_for_each_language() -> None:
    assert sorted(path.stem for path in (WEB / "lang").glob("*.json")) == sorted(LANGUAGES)


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_text_is_in_every_language_with_the_same_placeholders(lang: str) -> None:
    english, other = catalog("en"), catalog(lang)
    assert sorted(set(english) - set(other)) == [], f"not in {lang}.json"
    assert sorted(set(other) - set(english)) == [], f"in {lang}.json, not in en.json"
    for key, entry in english.items():
        # A plural's forms may leave out the count ("one" in German: "ein Stein"), not add one.
        assert placeholders(other[key]) <= placeholders(entry) | {"count"}, key
        if not key.startswith("server."):
            assert placeholders(other[key]) == placeholders(entry), key
        else:
            # The server's texts: German says every value the English one reads.
            assert placeholders(other[key]) == placeholders(entry), key
        assert isinstance(other[key], dict) == isinstance(entry, dict), f"{key}: plural in one only"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_text_is_empty_and_plurals_have_their_forms(lang: str) -> None:
    for key, entry in catalog(lang).items():
        assert isinstance(entry, str | dict), key
        if isinstance(entry, dict):
            assert set(entry) == {"one", "other"}, key
        for text in texts(entry):
            assert isinstance(text, str) and text.strip(), f"{lang}: {key} is empty"
            assert text == text.strip() or key.startswith("server."), f"{lang}: {key} has spaces around it"


def test_the_german_words_are_the_german_editions() -> None:
    de = catalog("de")
    assert [de[f"terrain.{name}"] for name in ("forest", "grain", "village", "meadow", "river", "track")] == [
        "Wald",
        "Getreidefeld",
        "Dorf",
        "Wiese",
        "Fluss",
        "Gleis",
    ]
    assert (de["terrain.lake"], de["terrain.mountain"]) == ("See", "Berg")
    assert (de["mode.coop"], de["mode.duel"], de["pad.button"]) == (
        "Das Brettspiel",
        "Das Duell",
        "Wertungsblock",
    )
    assert "Landschaftsplättchen" in de["lobby.intro"]


# --- the modules ------------------------------------------------------------------------------


def modules() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(WEB.glob("*.js"))}


#: t("key"), say("key"), t(`prefix.${...}`): the catalog keys the modules name.
KEY_CALL = re.compile(r"""\b(?:t|say|has|term)\(\s*(["'`])((?:(?!\1).)*)\1""")


def test_every_key_the_modules_name_is_in_the_catalog() -> None:
    keys = set(catalog("en"))
    named = 0
    for name, source in modules().items():
        for match in KEY_CALL.finditer(source):
            key = match.group(2)
            if match.group(1) == "`" and "${" in key:
                prefix = key.split("${")[0]
                assert any(k.startswith(prefix) for k in keys), f"{name}: no key starts with {prefix!r}"
            elif match.re.pattern and not key.endswith("."):
                assert key in keys, f"{name}: {key!r} is not in en.json"
            named += 1
    assert named > 300


class Literal:
    """A string literal of a module: its static text (a template's ${...} left out), where it is,
    and the code just before it."""

    def __init__(self, text: str, line: int, before: str) -> None:
        self.text, self.line, self.before = text, line, before


def literals(source: str) -> Iterator[Literal]:
    """The string literals of a JavaScript module (comments and regular expressions skipped)."""
    i, n = 0, len(source)
    last = ""  # the last significant character: tells a regular expression from a division
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
            continue
        if source.startswith("/*", i):
            i = source.index("*/", i) + 2
            continue
        if c == "/" and (last in "(,=:[!&|?{};+" or source[max(0, i - 7) : i].endswith("return ")):
            j = i + 1
            klass = False
            while source[j] != "/" or klass:
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    klass = True
                elif source[j] == "]":
                    klass = False
                j += 1
            i, last = j + 1, "/"
            continue
        if c in "\"'`":
            start, j, parts, depth = i, i + 1, [], 0
            chunk = ""
            while True:
                ch = source[j]
                if ch == "\\":
                    chunk += source[j : j + 2]
                    j += 2
                    continue
                if c == "`" and source.startswith("${", j):
                    # a placeholder: skip to its closing brace (literals inside are read on their own)
                    parts.append(chunk)
                    chunk = "\0"
                    depth, j = 1, j + 2
                    while depth:
                        depth += {"{": 1, "}": -1}.get(source[j], 0)
                        j += 1
                    continue
                if ch == c:
                    break
                chunk += ch
                j += 1
            parts.append(chunk)
            text = "".join(parts)
            yield Literal(text, source.count("\n", 0, start) + 1, source[max(0, start - 60) : start])
            if c == "`":
                # Literals inside the placeholders: read them too.
                for inner in re.finditer(r"\$\{((?:[^{}]|\{[^{}]*\})*)\}", source[start:j]):
                    for lit in literals(inner.group(1)):
                        yield Literal(lit.text, source.count("\n", 0, start) + lit.line, lit.before)
            i, last = j + 1, c
            continue
        if not c.isspace():
            last = c
        i += 1


#: Words: two words with a space (or a word and punctuation) between them, or a capitalised word.
PROSE = re.compile(r"[A-Za-z]{2,}[ ,.:;!?\u2019'…\0]+[A-Za-z]{2,}|^[A-Z][a-z]{2,}|[a-z]{3,}[.!?…]$")
#: Code that is no text: markup, styles, selectors, paths, media queries, keys of the catalog
#: and of storage (a template's placeholders are \0).
CODE = re.compile(r"[<>={}\[\]\\]|^[#(/.]|^[a-z-]+:\S|^\s*[\w.-]+\.[\w.-]+\s*$|https?:")
#: What comes before a literal that is not shown: class names, selectors, events, keys.
HIDDEN_CONTEXT = re.compile(
    r"""(class(Name)?\s*[:=]\s*|classList\.\w+\(\s*|querySelector(All)?\(\s*|closest\??\.?\(\s*|"""
    r"""addEventListener\(\s*|createElement(NS)?\(\s*|getElementById\(\s*|media\(\s*|key\s*===\s*|"""
    r"""\.type\s*===\s*|matchMedia\??\.?\(\s*|localStorage\.\w+\(\s*|dataset\.\w+\s*=\s*|"""
    r"""\b(t|say|has|term)\(\s*|console\.\w+\(\s*|new URL\(\s*|fetch\(\s*|import\(\s*|code\s*===\s*|"""
    r"""setAttribute\("(class|role|data-[\w-]+)",\s*|kind\s*===\s*|status\s*===\s*|startsWith\(\s*|"""
    r"""headers\[\s*)$"""
)
#: Literals that read like words and are no text to translate (file, text).
ALLOWED = {
    ("i18n.js", "English"),  # each language's own name, in its own language
    ("i18n.js", "Deutsch"),
    ("util.js", "The Board Game"),  # MODE_NAMES, the English names kept for other modules
    ("util.js", "The Duel"),
    ("util.js", "Head to Head"),
    ("util.js", "multicoloured flag"),  # the terrain's name as a catalog key
    ("hex.js", "multicoloured flag"),  # TERRAIN's English names (keys of the catalog's terrain.*)
    ("main.js", "dorf: the words could not be loaded"),  # the console's, for developers
    ("i18n.js", "dorf: no text for ${…}"),
    ("i18n.js", "no catalog ${…}: ${…}"),  # caught: the page goes on in English
    ("patch.js", "no ${…} in the description"),  # a delta that does not fit: the page asks for the state
    ("patch.js", "no item ${…}"),
    ("patch.js", "no list at ${…}"),
    ("patch.js", "unknown operation ${…}"),
}


def untranslated(name: str, source: str) -> list[str]:
    """The literals of a module that read like words shown to a person, not through the catalog."""
    found = []
    for lit in literals(source):
        text = lit.text.replace("\\n", " ")
        if not PROSE.search(text) or CODE.search(text) or HIDDEN_CONTEXT.search(lit.before):
            continue
        shown = text.replace("\0", "${…}")
        if (name, shown) not in ALLOWED:
            found.append(f"{name}:{lit.line}: {shown!r}")
    return found


def test_no_visible_text_is_written_into_the_modules() -> None:
    found = [line for name, source in modules().items() for line in untranslated(name, source)]
    assert found == [], "visible words that do not go through the catalog (t(key) and lang/*.json)"


def test_the_scan_finds_words_written_into_a_module() -> None:
    source = (
        'put(card, el("h3", {}, "Score"), el("p", {}, `Final score: ${n}`), el("b", {}, t("score.title")));'
    )
    source += '\nconst c = el("div", { class: "card big" }); el("a", { title: "Show the board" }, "✕");'
    source += '\nif (e.key === "Enter") a.addEventListener("click", f); b.classList.toggle("is open", x);'
    source += '\nconst r = /"[A-Z]x"/; toast(`${n} of the "tiles" ${`Took back ${n}`}`);'
    assert untranslated("x.js", source) == [
        "x.js:1: 'Score'",
        "x.js:1: 'Final score: ${…}'",
        "x.js:2: 'Show the board'",
        """x.js:4: '${…} of the "tiles" ${…}'""",
        "x.js:4: 'Took back ${…}'",
    ]


# --- the server's English -----------------------------------------------------------------------


@cache
def templates() -> list[tuple[str, list[str], re.Pattern[str], int]]:
    """The catalog's server templates as i18n.js compiles them, the most particular first."""
    out = []
    for key, entry in catalog("en").items():
        if not key.startswith("server."):
            continue
        for text in texts(entry):
            names = re.findall(r"\{(\w+)\}", text)
            pattern = "".join(
                "(.+?)" if re.fullmatch(r"\{\w+\}", part) else re.escape(part)
                for part in re.split(r"(\{\w+\})", text)
                if part
            )
            literal = len(re.sub(r"\{\w+\}", "", text))
            out.append((key, names, re.compile(f"^{pattern}$", re.S), literal))
    out.sort(key=lambda item: (-item[3], len(item[1])))
    return out


def _kind_ok(name: str, value: str) -> bool:
    """Whether a placeholder's value is of its kind (as i18n.js's KINDS)."""
    en = catalog("en")
    kind = re.sub(r"\d+$", "", name)
    if kind == "task":
        m = re.fullmatch(r"([a-z]+(?:/[a-z]+)?) (\d+)", value)
        return bool(m) and all(f"task.{n}" in en for n in m.group(1).split("/"))
    prefixes = {"terrain": "terrain.", "flag": "flagname.", "colour": "colour.", "kind": "taskkind."}
    if kind in prefixes:
        return f"{prefixes[kind]}{value.lower() if kind in ('colour', 'kind') else value}" in en
    if kind == "level":
        return f"level.{value.lower()}" in en
    if kind == "face":
        return re.fullmatch(r"[A-Z]{6}", value) is not None
    if kind == "tile":  # a face, then what it carries: read again on its own
        return re.match(r"[A-Z]{6}(\s|$)", value) is not None
    if kind == "reason":
        return True
    if kind == "pct":
        return re.fullmatch(r"\d+%", value) is not None
    if kind in ("n", "count"):
        return re.fullmatch(r"-?\d+(\.\d+)?", value) is not None
    return True


def reads(text: str) -> str | None:
    """The key of the server template that reads ``text`` (None: none does)."""
    for key, names, pattern, _ in templates():
        m = pattern.match(text)
        if m and all(_kind_ok(name, value) for name, value in zip(names, m.groups(), strict=True)):
            for name, value in zip(names, m.groups(), strict=True):
                if re.sub(r"\d+$", "", name) in ("tile", "reason") and not re.fullmatch(r"[A-Z]{6}", value):
                    assert reads(value), f"{value!r} (in {text!r}) is read by no template"
            return key
    return None


def test_a_template_reads_a_text_with_its_kinds_of_values() -> None:
    assert reads("Ann placed FFGGMM (forest 5 task) at 1,-2") == "server.log.placed"
    assert reads("completes forest/grain 6 at once") == "server.coach.completes_now"
    assert reads("Forest tasks (B1)") == "server.pad.kind_field"
    assert reads("Completed tasks (S1)") == "server.pad.s1"
    assert reads("Zoe took FFFMMM (forest 4 task)") == "server.log.took"  # not "{face} ({task} task)"
    assert reads("completes pizza 5") is None  # no such task
    assert reads("Something else entirely") is None


def _games() -> Iterator[tuple[Any, list[Any]]]:
    """Whole games of each mode (the greedy player's moves, some random ones), with the previews
    of some placements."""
    from dorf.games.coop import CoopState
    from dorf.games.state import Pick
    from dorf.players import make_player
    from dorf.rules.area import Placement
    from dorf.rules.hexgrid import Hex
    from dorf.server.protocol.messages import Move
    from dorf.server.round.preview import preview
    from dorf.server.round.session import MODES, GameSession, SeatSpec

    greedy = make_player("greedy")
    for seed, mode in enumerate(MODES * 2):
        rng = random.Random(seed)
        session = GameSession.new("g", mode, seed, [SeatSpec("here", "Ann"), SeatSpec("here", "Bo")])
        previews = []
        while not session.is_over:
            seat = rng.choice(session.waiting())
            state = session.state
            view = state.view() if isinstance(state, CoopState) else state.view(session.player_of[seat])
            doc = session.document({seat})
            if doc["game"]["phase"] == "draft":
                session.apply(Move(seat, Pick(greedy.choose(view).tile_id)))
                continue
            legal = doc["you"]["legal"][str(seat)]
            for q, r, rots in rng.sample(legal, min(3, len(legal))):
                previews.append(preview(session, seat, Placement(Hex(q, r), rots[0])))
            if rng.random() < 0.8:
                session.apply(Move(seat, greedy.choose(view)))
            else:
                q, r, rots = rng.choice(legal)
                session.apply(Move(seat, Placement(Hex(q, r), rng.choice(rots))))
        yield session, previews


def _coach_reasons() -> Iterator[str]:
    """What the coach says of placements: every effect, its opposite, the gains of one over another."""
    from dorf.games.coop import CoopGame
    from dorf.games.headtohead import HeadToHeadGame
    from dorf.players import make_player
    from dorf.players.coach import fits_for, hint, outlook_gains
    from dorf.players.explain import effects, gains

    greedy = make_player("greedy")
    state = CoopGame(seed=3).new_state()
    for number in range(60):
        view = state.view()
        revealed = view.revealed
        if revealed is None or state.is_over:
            break
        legal = view.legal_placements()
        tile, fits = revealed.tile, fits_for(view)
        found = [effects(view.area, tile.face, revealed.task, tile.flag, p, fits) for p in legal[::3]]
        for listed in found:
            for effect in listed:
                yield effect.text
                if effect.opposite:
                    yield effect.opposite
        for a, b in itertools.pairwise(found):
            yield from gains(a, b)
            yield from gains(b, a)
        if number % 20 == 10 and len(legal) > 1:
            yield from outlook_gains(view, legal[0], legal[-1], limit=6)
            yield from outlook_gains(view, legal[-1], legal[0], limit=6)
        state.play(greedy.choose(view))
    draft = HeadToHeadGame(seed=1).new_state()
    for _ in range(2):
        advice = hint(draft.view(draft.player), "planner:2", 1)
        yield from advice.reasons
        draft.play(greedy.choose(draft.view(draft.player)))


def why_not(session: Any, move: Any) -> Any:
    """The server's refusal of ``move`` (None if it may be made: then it is taken back again)."""
    from dorf.server.protocol.messages import ProtocolError

    try:
        session.apply(move)
    except ProtocolError as error:
        return error
    session.take_back(1, counted=False)
    return None


def _errors() -> Iterator[str]:
    """What the server refuses, in its words: wrong turns and places, in each mode."""
    from dorf.games.state import Pick
    from dorf.rules.area import Placement
    from dorf.rules.hexgrid import Hex
    from dorf.server.protocol.messages import Move
    from dorf.server.round.session import GameSession, SeatSpec

    seats = [SeatSpec("here", "Ann"), SeatSpec("here", "Bo")]
    for mode in ("coop", "duel", "head-to-head"):
        session = GameSession.new("g", mode, 5, seats)
        rng = random.Random(5)
        for _ in range(30):
            seat = session.waiting()[0]
            other = 1 - seat
            doc = session.document({seat})
            if doc["game"]["phase"] == "draft":
                for move in (Move(other, Pick(doc["game"]["pool"][0]["id"])), Move(seat, Pick(9999))):
                    error = why_not(session, move)
                    if error:
                        yield error.message
                yield from (e.message for e in [why_not(session, Move(seat, Placement(Hex(0, 0), 0)))] if e)
                session.apply(Move(seat, Pick(doc["game"]["pool"][0]["id"])))
                continue
            for at in (Hex(0, 0), Hex(9, 9), Hex(0, 1), Hex(1, 0), Hex(-1, 1)):
                for rot in range(6):
                    for who in (seat, other):
                        error = why_not(session, Move(who, Placement(at, rot)))
                        if error is not None:
                            yield error.message
            q, r, rots = rng.choice(doc["you"]["legal"][str(seat)])
            session.apply(Move(seat, Placement(Hex(q, r), rots[0])))


def _tiles() -> Iterator[str]:
    """Every tile of every box as the log names it (with its flag, its task)."""
    from dorf.games.coop import CoopGame
    from dorf.games.duel import DuelGame
    from dorf.games.headtohead import HeadToHeadGame
    from dorf.server.protocol.views import describe_tile

    for game in (CoopGame(seed=1), DuelGame(seed=1), HeadToHeadGame(seed=1)):
        for tile in game.tileset.tiles:
            yield f"Ann took {describe_tile(tile)}"


def _campaign_texts() -> Iterator[str]:
    from dorf.campaign.sheet import default_sheet

    sheet = default_sheet()
    yield sheet.name
    for achievement in sheet.achievements:
        yield achievement.name
    for node in sheet.nodes.values():
        if node.unlocks:
            yield node.unlocks


def _fixed_errors() -> Iterator[str]:
    """Refusals of the server that need no game to make."""
    from dorf.server.computer.hints import check_hint_allowed  # noqa: F401  (its words are below)

    yield "no hints in a game against another person (only in practice games)"
    yield "seat 1 has nothing to decide now"
    yield "at most 5 new games a minute from one address: try again in 12 s"
    yield "at most 5 new games a minute from one player: try again in 12 s"
    yield "at most 2 new campaigns a minute from one address: try again in 3 s"
    yield "there is nothing to undo"
    yield "a laid tile stays: undo is only for practice games (chosen when created)"
    # the daily challenge's refusals (dorf.server.daily.challenge, .calendar)
    yield "no hints in your attempt at the daily challenge (practice games of it have them)"
    yield "your attempt at today's challenge goes on: finish it first (its game is in GET /api/daily)"
    yield "a day is written YYYY-MM-DD (2026-12-02)"
    yield "the challenge of 2026-12-09 has not begun"
    yield "the lessons are for the game's players: send your seat's token"
    yield "the lessons come once the game is over"
    yield "the daily challenge is played by a player: open the site first"


def _lesson_reasons() -> Iterator[str]:
    """What the coach's lessons after a game say (the planner's foresight among them): a game
    whose lessons give every kind of reason another seed's do, and more (a river, a task kept
    possible)."""
    from dorf.formats.record import record_of
    from dorf.games.coop import CoopGame
    from dorf.server.computer.lessons import lessons_for

    for seed in (5,):
        state = CoopGame(seed=seed).new_state()
        rng = random.Random(seed)
        while not state.is_over:
            state.apply(rng.choice(state.legal_decisions(0)), 0)
        for lesson in lessons_for(record_of(state, ["Ann"]), [0], "planner:1")["lessons"]:
            yield from lesson["reasons"]


@pytest.mark.slow
def test_every_english_text_of_the_server_has_a_template() -> None:
    from dorf.players.levels import levels

    # Each text with the part of the catalog that must read it.
    said: dict[str, str] = {}
    for session, previews in _games():
        said.update((entry["text"], "server.log.") for entry in session.public()["log"])
        for pad in session.public()["scores"]:
            said.update((row[0], "server.pad.") for row in pad["rows"])
        for preview in previews:
            said.update((label, "server.pad.") for label, _, _ in preview["score_changes"])
    said.update((text, "server.coach.") for text in _coach_reasons())
    said.update((text, "server.coach.") for text in _lesson_reasons())
    said.update((text, "server.error.") for text in _errors())
    said.update((text, "server.campaign.") for text in _campaign_texts())
    said.update((text, "server.log.") for text in _tiles())
    said.update((text, "server.error.") for text in _fixed_errors())
    for level in levels():
        said.update((figure, "server.level.") for figure in level.as_json()["figures"].values())
    unread = sorted(text for text in said if reads(text) is None)
    assert unread == [], "texts of the server no template of en.json reads"
    misread = sorted(
        f"{text!r}: {reads(text)}" for text, part in said.items() if not str(reads(text)).startswith(part)
    )
    assert misread == [], "texts read by a template of another kind"
    assert len(said) > 150
    # A level's label ("Easy") is said by the catalog's own word for it.
    assert all(f"level.{level.name}" in catalog("en") for level in levels())

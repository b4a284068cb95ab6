"""Head to Head at the terminal: the draft, then two play areas laid in turn.

- **The draft**: the open pool is listed by tile number, landscape tiles
  first, then the task tiles by type and value; under it, what each player
  has taken.  ``pick N`` (or just ``N``) takes tile N; ``look N`` draws it.
  Player 2 picks second and receives the last open tile.
- **Laying**: players place one tile a round, the one who started the draft
  first.  Each screen shows both areas, the tile to place in each rotation,
  both players' active tasks, scores so far and stacks; a player whose game is
  over waits while the other plays on.  The second to place in a round sees
  the other's area, stacks and tile as they were before the other's placement
  of the round, which is reported once both have placed.
- **The end**: both score pads; for equal totals the tie-breakers, one by one,
  until one decides, else a shared victory.
"""

from __future__ import annotations

from collections.abc import Sequence

from dorf.games.headtohead import DRAFT, HeadToHeadState, Pick
from dorf.rules.area import PlayArea
from dorf.rules.scoring import HEAD_TO_HEAD_TASK_TYPES, HeadToHeadScorePad, score_head_to_head
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import Tile, distinct_rotations
from dorf.terminal.render import face_text, render_rotations
from dorf.terminal.screen import changes_text, plural, tile_text
from dorf.terminal.two_player import COMMON_HELP, PLACE_HELP, TwoPlayerSession

DRAFT_HELP = """\
The draft:  pick N  (or just N) takes open tile N.
  pool          list the open tiles again
  look N        draw tile N in each rotation
  taken         list the tiles each player has taken"""

#: What the tie-breakers compare, in order (rule 21), after the totals.
TIE_BREAKERS = (
    "mountains and lakes formed",
    "longest river",
    "points from multicoloured flags",
    "points from tasks",
)


def pool_tile_text(tile: Tile) -> str:
    """A tile of the draft in words: ``FFFMRM``, ``FFFFFF forest task 7``."""
    if tile.task is not None:
        return f"{tile.face} {tile.task} task {tile.value}"
    return tile.face


def wrap(entries: Sequence[str], entry_width: int, indent: str, width: int) -> list[str]:
    """Entries of one visible width in rows that fit ``width`` characters."""
    per_row = max(1, (width - len(indent)) // (entry_width + 2))
    return [indent + "  ".join(entries[i : i + per_row]) for i in range(0, len(entries), per_row)]


class HeadToHeadSession(TwoPlayerSession[HeadToHeadState]):
    """A Head to Head game at the terminal, hot-seat or against the computer."""

    mode = "head-to-head"
    title = "Head to Head"
    help_text = f"{DRAFT_HELP}\nThe laying: {PLACE_HELP[0].lower()}{PLACE_HELP[1:]}\nCommands:\n{COMMON_HELP}"

    @property
    def drafting(self) -> bool:
        return self.state.phase == DRAFT

    def tile(self, tile_id: int) -> Tile:
        return self.state.game.tileset.tiles[tile_id]

    def enter(self, text: str, player: int) -> bool:
        if not self.drafting:
            return self.place(text, player)
        words = text.split()
        if len(words) != 1:
            self.console.say("the draft is on: take a tile with  pick N")
            return False
        return self.cmd_pick(words[0], player)

    def prompt(self, player: int) -> str:
        if self.drafting:
            return f"{self.name(player)}, pick {len(self.state.history) + 1}> "
        return f"{self.name(player)}, turn {self.turn_of(player)}> "

    def turn_of(self, player: int) -> int:
        seats = self.state.seats
        return len(seats[player].turns) if seats is not None else 0

    def where(self) -> str:
        if self.drafting:
            return f"pick {len(self.state.history) + 1} of the draft"
        return " and ".join(f"{self.name(p)}'s turn {self.turn_of(p)}" for p in (0, 1))

    def unfinished_lines(self) -> list[str]:
        return self.taken_lines() if self.drafting else super().unfinished_lines()

    def pauses_after(self) -> bool:
        return not self.drafting

    # --- commands ------------------------------------------------------------------------

    def cmd_pick(self, rest: str, player: int) -> bool:
        if not rest:
            self.console.say("pick needs a tile number: pick N")
            return False
        try:
            tile_id = int(rest)
        except ValueError:
            self.console.say(f"cannot read tile number {rest!r}: pick N takes open tile N")
            return False
        return self.decide(Pick(tile_id), player)

    def cmd_pool(self, rest: str, player: int) -> bool:
        if not self.drafting:
            self.console.say("the draft is over: every tile has been taken")
            return False
        self.console.lines(self.pool_lines())
        return False

    cmd_tiles = cmd_pool

    def cmd_look(self, rest: str, player: int) -> bool:
        tiles = self.state.game.tileset.tiles
        try:
            tile_id = int(rest)
        except ValueError:
            self.console.say(f"look needs a tile number from 0 to {len(tiles) - 1}: look N")
            return False
        if not 0 <= tile_id < len(tiles):
            self.console.say(f"there is no tile {tile_id}: tiles are numbered 0 to {len(tiles) - 1}")
            return False
        tile = tiles[tile_id]
        where = "open" if tile_id in self.state.pool else self.holder(tile_id)
        self.console.say(f"Tile {tile_id}: {pool_tile_text(tile)} ({where})")
        task = TaskSpec(tile.task, tile.value) if tile.task is not None and tile.value is not None else None
        face = tile.face
        self.console.lines(
            render_rotations(
                face, distinct_rotations(face), task=task, flag=tile.flag, color=self.console.color
            )
        )
        return False

    def holder(self, tile_id: int) -> str:
        for p in (0, 1):
            if tile_id in self.state.owned[p] or tile_id in self.state.flags[p]:
                return f"{self.name(p)}'s"
        return "not in play"

    def cmd_taken(self, rest: str, player: int) -> bool:
        color = self.console.color
        for p in (0, 1):
            ids = [*self.state.flags[p], *self.state.owned[p]]
            self.console.say(f"{self.name(p)}'s tiles ({len(ids)}, the 2 multicoloured flag tiles first):")
            entries = [f"{i:>2} {face_text(self.tile(i).face, color)}{self.task_suffix(i)}" for i in ids]
            self.console.lines([row.rstrip() for row in wrap(entries, 13, "  ", self.console.width)])
        return False

    def task_suffix(self, tile_id: int) -> str:
        """`` (3)`` for a task tile asking for 3 tiles; blanks of the same width otherwise."""
        value = self.tile(tile_id).value
        return f" ({value})" if value is not None else "    "

    def cmd_score(self, rest: str, player: int) -> bool:
        if self.drafting:
            self.console.say("nothing is scored in the draft: the score pads start with the laying")
            return False
        return super().cmd_score(rest, player)

    # --- reports -----------------------------------------------------------------------

    def mark(self, player: int) -> int:
        return self.turn_of(player) - 1

    def report(self, mark: int, player: int) -> list[str]:
        state = self.state
        decision = state.history[-1][1]
        if isinstance(decision, Pick):
            taken = f"tile {decision.tile_id}: {pool_tile_text(self.tile(decision.tile_id))}"
            lines = [f"{self.name(player)} takes {taken}."]
            if state.seats is not None:
                lines += self.deal_lines()
            return lines
        assert state.seats is not None
        seat = state.seats[player]
        lines = []
        for turn in seat.turns[mark:]:
            who = f"{self.name(player)}'s turn {turn.number}"
            if turn.set_aside:
                lines.append(f"{who}: {tile_text(turn.revealed)} fits nowhere and is set aside.")
            elif turn.placement is not None:
                text = f"{who}: placed {tile_text(turn.revealed)} at {turn.placement}."
                lines.append(text + changes_text(turn.changes))
        if seat.is_over:
            lines.append(self.over_line(player))
        return lines

    def over_line(self, player: int) -> str:
        text = f"{self.name(player)}'s game is over: a landscape tile is due and none is left."
        seats = self.state.seats
        other = 1 - player
        if seats is not None and not seats[other].is_over:
            text += f" {self.name(other)} plays on."
        return text

    def deal_lines(self) -> list[str]:
        """The end of the draft: the last tile, the stacks, tiles set aside at once."""
        state = self.state
        last = state.owned[1][-1]
        counts = [len(state.owned[p]) + len(state.flags[p]) for p in (0, 1)]
        lines = [
            f"The last open tile, {last} ({pool_tile_text(self.tile(last))}), goes to {self.name(1)}.",
            f"The draft is over: {self.name(0)} has {counts[0]} tiles and {self.name(1)} {counts[1]}, "
            "the 2 multicoloured flag tiles included.",
            "Each player's tiles are shuffled into a task stack and a landscape stack: the laying begins.",
        ]
        assert state.seats is not None
        for p, seat in enumerate(state.seats):
            for turn in seat.turns:
                if turn.set_aside:
                    lines.append(
                        f"{self.name(p)}'s turn {turn.number}: {tile_text(turn.revealed)} fits nowhere "
                        "and is set aside."
                    )
        return lines

    # --- the screen --------------------------------------------------------------------

    def maps(self, player: int | None) -> list[str]:
        if self.drafting:
            return []
        return super().maps(player)

    def screen(self, player: int) -> list[str]:
        if self.drafting:
            return self.draft_screen(player)
        state = self.state
        seats = state.seats
        assert seats is not None
        other = 1 - player
        if seats[other].is_over:
            note = f"; game over, waiting for {self.name(player)} to finish"
        elif other in state.to_move():
            note = f"; places after {self.name(player)}"
        else:
            note = "; has placed this round (shown once you have placed yours)"
        revealed = state.revealed(player)
        assert revealed is not None
        other_lines = self.block(other, note, player)
        upcoming = state.revealed(other)
        if upcoming is not None and other not in state.pending():
            other_lines.append(f"  Tile to place next: {tile_text(upcoming)}")
        return [
            self.console.title(f"Head to Head, {self.name(player)}'s turn {self.turn_of(player)}"),
            *other_lines,
            *self.block(player, "", player),
            f"Tile to place: {tile_text(revealed)}",
            *self.tile_lines(player),
        ]

    def block(self, player: int, note: str, viewer: int) -> list[str]:
        """A player's tiles, score, tasks and flags as ``viewer`` may see them."""
        tasks, landscapes = self.state.view(viewer).stacks_left[player]
        stacks = f", {tasks} task and {landscapes} landscape tiles left{note}"
        return self.player_lines(player, stacks)

    def draft_screen(self, player: int) -> list[str]:
        state = self.state
        picks = len(state.pool) + len(state.owned[0]) + len(state.owned[1]) - 1
        return [
            self.console.title(
                f"Head to Head draft, pick {len(state.history) + 1} of {picks}: {self.name(player)} to pick"
            ),
            *self.pool_lines(),
            *self.taken_lines(),
            f"Type pick N (or just N) to take tile N, look N to draw it. {self.name(1)} picks second "
            "and gets the last open tile.",
        ]

    def pool_lines(self) -> list[str]:
        """Every open tile by number: landscape tiles, then task tiles by type and value."""
        state = self.state
        color = self.console.color
        width = self.console.width
        landscapes = [i for i in state.pool if not self.tile(i).is_task]
        tasks = [i for i in state.pool if self.tile(i).is_task]
        out = [f"Open tiles ({len(state.pool)}):", f"  Landscape tiles ({len(landscapes)}):"]
        out += wrap([f"{i:>2} {face_text(self.tile(i).face, color)}" for i in landscapes], 9, "    ", width)
        out.append(f"  Task tiles ({len(tasks)}), with the size each asks for:")
        for kind in HEAD_TO_HEAD_TASK_TYPES:
            ids = sorted(
                (i for i in tasks if self.tile(i).task == kind), key=lambda i: self.tile(i).value or 0
            )
            if ids:
                entries = [f"{i:>2} {face_text(self.tile(i).face, color)}{self.task_suffix(i)}" for i in ids]
                rows = wrap(entries, 13, " " * 12, width)
                out += [f"    {kind:<8}{rows[0][12:]}" if n == 0 else row for n, row in enumerate(rows)]
        return out

    def taken_lines(self) -> list[str]:
        """What each player has taken: counts, the tasks, and the edges that matter."""
        out = []
        for p in (0, 1):
            owned = self.state.owned[p]
            tasks = sorted((t.task or "", t.value or 0) for t in map(self.tile, owned) if t.is_task)
            listed = f" ({', '.join(f'{kind} {value}' for kind, value in tasks)})" if tasks else ""
            mine = [self.tile(i) for i in (*owned, *self.state.flags[p])]
            features = ", ".join(
                f"{sum(1 for t in mine if letter in t.face)} {what}"
                for letter, what in (
                    ("R", "with a river"),
                    ("P", "with a mountain half"),
                    ("L", "with a lake half"),
                )
            )
            out.append(
                f"{self.name(p)} has taken {len(owned) - len(tasks)} landscape and "
                f"{plural(len(tasks), 'task tile')}{listed}"
            )
            out.append(f"  counting the 2 flag tiles: {features}")
        return out

    def scorer(self, area: PlayArea) -> HeadToHeadScorePad:
        return score_head_to_head(area)

    def score_text(self, player: int) -> str:
        pad = score_head_to_head(self.shown(player))
        return (
            f"Score now {pad.total}: tasks {sum(pad.tasks.values())}, longest river {pad.longest_river}, "
            f"flags {pad.flags}, mountains and lakes {pad.mountains}+{pad.lakes} ({pad.mountains_lakes})"
        )

    def result_lines(self) -> list[str]:
        first, second = (pad.tie_breakers() for pad in self.state.scores())
        winner = self.state.winner()
        if first[0] != second[0]:
            assert winner is not None
            high, low = max(first[0], second[0]), min(first[0], second[0])
            return [f"{self.name(winner)} wins, {high} to {low}."]
        lines = [f"Both total {first[0]}: the tie-breakers decide."]
        for i, label in enumerate(TIE_BREAKERS, 1):
            lines.append(f"  {i}. {label}: {self.name(0)} {first[i]}, {self.name(1)} {second[i]}")
            if first[i] != second[i]:
                assert winner is not None
                lines.append(f"{self.name(winner)} wins on tie-breaker {i}, {label}.")
                return lines
        lines.append("Level after every tie-breaker: a truly unique game, and a shared victory.")
        return lines

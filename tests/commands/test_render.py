"""The text hex map: positions of letters, labels, marks, layouts and colours."""

from __future__ import annotations

from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.tasks import COMPLETED, FAILED, TaskSpec
from dorf.terminal.render import (
    NARROW,
    PALETTE,
    WIDE,
    Canvas,
    face_text,
    legend,
    map_width,
    paint,
    render_area,
    render_rotations,
    rotations_text,
    side_by_side,
    task_mark,
    visible_width,
)

ESC = "\033"


def area_of(*placements: tuple[str, int, int, int]) -> PlayArea:
    area = PlayArea()
    for face, q, r, rot in placements:
        area.play(face, Placement(Hex(q, r), rot))
    return area


def find(lines: list[str], text: str) -> tuple[int, int]:
    """(column, line) of the first occurrence of ``text``."""
    for y, line in enumerate(lines):
        x = line.find(text)
        if x >= 0:
            return x, y
    raise AssertionError(f"{text!r} not in:\n" + "\n".join(lines))


def test_one_tile_shows_its_six_edges_in_order() -> None:
    lines = render_area(area_of(("FGVMRT", 0, 0, 0)))
    assert lines == [
        "  _____",
        " /  F  \\",
        "/T     G\\",
        "\\R     V/",
        " \\__M__/",
    ]


def test_rotation_turns_the_letters_clockwise() -> None:
    lines = render_area(area_of(("FGVMRT", 0, 0, 1)))
    assert lines[1] == " /  T  \\"  # face edge 5 now points north
    assert lines[2] == "/R     F\\"


def test_neighbour_to_the_south_sits_below_edge_to_edge() -> None:
    lines = render_area(area_of(("RMMRMM", 0, 0, 0), ("RMMRMM", 0, 1, 0)))
    assert len(lines) == 9
    # the upper tile's S edge is on the border line, the lower tile's N edge right under it
    assert lines[4] == " \\__R__/"
    assert lines[5] == " /  R  \\"


def test_next_column_is_seven_right_and_half_a_hex_down() -> None:
    area = area_of(("FFFFFF", 0, 0, 0), ("GGGGGG", 1, 0, 0))
    lines = render_area(area)
    x_f, y_f = find(lines, "/  F  \\")
    x_g, y_g = find(lines, "/  G  \\")
    assert (x_g - x_f, y_g - y_f) == (7, 2)
    # north-east of (0, 0) is (1, -1): seven right, half a hex up
    lines = render_area(area_of(("FFFFFF", 0, 0, 0), ("GGGGGG", 1, -1, 0)))
    x_f, y_f = find(lines, "/  F  \\")
    x_g, y_g = find(lines, "/  G  \\")
    assert (x_g - x_f, y_g - y_f) == (7, -2)


def test_map_is_cropped_to_tiles_and_labels() -> None:
    area = area_of(("FFFFFF", 0, 0, 0), ("FFFFFF", 0, 1, 0), ("FFFFFF", 0, 2, 0))
    lines = render_area(area)
    assert lines[0] == "  _____"
    assert len(lines) == 3 * 4 + 1
    assert max(len(line) for line in lines) == WIDE.width
    labelled = render_area(area, frontier=area.frontier())
    assert labelled[0].strip() == "0,-1"  # the top label is the first line
    assert labelled[-1].strip() == "0,3"  # and the bottom one the last
    x_left, _ = find(labelled, "-1,0")
    assert x_left == 2  # centred in the leftmost column, which starts the map


def test_legal_cells_show_coordinates_and_rotations() -> None:
    area = area_of(("RMMRMM", 0, 0, 0))
    legal = {Hex(0, -1): [0, 3], Hex(0, 1): [0]}
    lines = render_area(area, legal=legal, frontier=area.frontier())
    x_label, y_label = find(lines, "0,-1")
    x_rots, y_rots = find(lines, "03")
    assert y_rots == y_label + 1 and abs(x_rots - x_label) <= 1
    text = "\n".join(lines)
    for cell in area.frontier():
        assert f"{cell.q},{cell.r}" in text
    # cells where nothing fits get coordinates but no rotations
    x_blocked, y_blocked = find(lines, "1,-1")
    assert lines[y_blocked + 1][x_blocked : x_blocked + 4].strip() == ""


def test_first_tile_label_and_all_six_rotations() -> None:
    lines = render_area(PlayArea(), legal={Hex(0, 0): list(range(6))})
    assert [line.strip() for line in lines] == ["0,0", "0-5"]
    assert rotations_text([0, 2, 5], 5) == "025"


def test_task_flag_and_last_marks() -> None:
    area = PlayArea()
    area.play("FFFFFF", Placement(Hex(0, 0), 0), task=TaskSpec("forest", 2))
    area.play("MFFFFF", Placement(Hex(0, 1), 3), flag="F")
    area.play("VMMMMM", Placement(Hex(1, 0), 0), task=TaskSpec("village", 4))
    lines = render_area(area, last=Hex(1, 0))
    text = "\n".join(lines)
    assert "F2+" in text  # completed: the forest has exactly 2 tiles
    assert "^F" in text
    assert "V4" in text and "V4x" not in text
    x_task, y_task = find(lines, "V4")
    assert lines[y_task + 1][x_task + 1] == "*"  # the last tile is the village task's
    area.play("MMMMMM", Placement(Hex(1, -1), 0))
    assert "V4x" in "\n".join(render_area(area))  # its village closed at 1 tile: failed


def test_narrow_layout_when_the_roomy_one_is_too_wide() -> None:
    area = PlayArea()
    for q in range(8):
        area.play("FFFFFF", Placement(Hex(q, 0), 0))
    cells = [t.at for t in area.placed]
    assert map_width(cells, WIDE) == 7 * 7 + 9
    wide = render_area(area, max_width=100)
    narrow = render_area(area, max_width=50)
    assert max(map(len, wide)) == map_width(cells, WIDE)
    assert max(map(len, narrow)) == map_width(cells, NARROW) <= 50
    assert narrow[1].startswith(" / F \\")


def test_no_color_has_no_escapes_and_color_has_them() -> None:
    area = area_of(("FGVMRT", 0, 0, 0))
    plain = render_area(area, legal={Hex(0, -1): [0]})
    coloured = render_area(area, legal={Hex(0, -1): [0]}, color=True)
    assert not any(ESC in line for line in plain)
    assert any(ESC in line for line in coloured)
    # colour adds escapes around the same characters
    strip = [line.replace(ESC, "") for line in coloured]
    assert all("F" in line for line in strip if "[1;97;48;5;28mF" in line)
    assert paint("x", "F", False) == "x"
    assert paint("x", "F", True).startswith(ESC)


def test_rotations_are_drawn_and_labelled() -> None:
    lines = render_area(area_of(("RMMRMM", 0, 0, 0)))
    assert lines
    rotations = render_rotations("RMMRMM", (0, 1, 2), task=TaskSpec("river", 5), cells={0: 2, 1: 0, 2: 1})
    text = "\n".join(rotations)
    for k in range(3):
        assert f"rot {k}" in text
    assert "rot 3" not in text
    assert "2 cells" in text and "no fit" in text and "1 cell" in text
    assert text.count("R5") == 3
    # rot 1 turns the river to NE and SW: the hex's corner is 2 left of its label
    x, y = find(rotations, "rot 1")
    corner = x - 2
    assert rotations[y + 3][corner + 7] == "R"  # NE
    assert rotations[y + 4][corner + 1] == "R"  # SW
    assert rotations[y + 2][corner + 4] == "M"  # N


def test_canvas_drops_what_falls_outside_and_trims() -> None:
    canvas = Canvas(4, 2)
    canvas.put(2, 0, "abcdef")
    canvas.put(0, 5, "zz")
    assert canvas.lines() == ["  ab", ""]


def test_legend_names_every_terrain() -> None:
    text = "\n".join(legend())
    for word in ("forest", "grain", "village", "meadow", "river", "track", "flag", "task"):
        assert word in text


def test_lake_mountain_and_flag_edges_read_as_letters() -> None:
    area = PlayArea()
    area.play("XMMPPM", Placement(Hex(0, 0), 0), flag="X")
    area.play("FFFLPL", Placement(Hex(0, 1), 2))  # its mountain half meets the flag tile's
    lines = render_area(area)
    text = "\n".join(lines)
    assert "X" in lines[1] and "^X" in text  # the X edge at the top, the flag in the centre
    assert "P" in text and "L" in text
    plain = render_area(area, color=False)
    assert not any(ESC in line for line in plain)


def test_lake_mountain_and_flag_colours_are_their_own() -> None:
    styles = {letter: PALETTE[letter] for letter in "RLPXT"}
    assert len(set(styles.values())) == len(styles)  # lake is not river, mountain is not track
    coloured = "\n".join(render_area(area_of(("RLPXMM", 0, 0, 0)), color=True))
    for letter in "RLPX":
        assert f"\033[{PALETTE[letter]}m{letter}\033[0m" in coloured
    assert face_text("RLPXMM", color=False) == "RLPXMM"
    assert visible_width(face_text("RLPXMM", color=True)) == 6


def test_legend_shows_the_letters_of_the_mode() -> None:
    coop = "\n".join(legend(mode="coop"))
    duel = "\n".join(legend(mode="duel"))
    h2h = "\n".join(legend(mode="head-to-head"))
    assert "T track" in coop and "L lake" not in coop
    assert "C4 connection task" in duel and "FG6 double task" in duel and "T track" in duel
    for words in ("L lake", "P mountain", "X multicoloured flag", "^X multicoloured flag"):
        assert words in h2h
    assert "T track" not in h2h
    assert legend() == legend(mode="coop")
    assert any(ESC in line for line in legend(color=True, mode="head-to-head"))


def test_duel_task_marks() -> None:
    connection = TaskSpec("connection", 4)
    double = TaskSpec("double", 6, ("forest", "grain"))
    assert task_mark(connection) == ("C4", "task")
    assert task_mark(double) == ("FG6", "task")
    assert task_mark(double, COMPLETED) == ("FG6+", "done")
    assert task_mark(double, FAILED, room=3) == ("D6x", "failed")
    area = PlayArea()
    area.play("FFGGVV", Placement(Hex(0, 0), 0), task=double)
    assert "FG6" in "\n".join(render_area(area))
    for q in range(1, 9):
        area.play("MMMMMM", Placement(Hex(q, 0), 0))
    narrow = render_area(area, max_width=50)
    assert "D6" in "\n".join(narrow) and "FG6" not in "\n".join(narrow)


def test_side_by_side_pads_coloured_lines_by_what_shows() -> None:
    left = [paint("ab", "F", True), "abcd"]
    right = ["x", "y", "z"]
    lines = side_by_side([left, right], gap=2)
    assert [visible_width(line) for line in lines] == [7, 7, 7]
    assert lines[2] == " " * 6 + "z"
    assert side_by_side([]) == []

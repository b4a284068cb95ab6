"""What changed between two descriptions of a game: small deltas instead of whole states.

After a move the server tells each client what changed in that client's view
(:meth:`dorf.server.round.fanout.Fanout.broadcast`), not the whole state again.  A delta
is a list of operations on a JSON document; :func:`diff` makes it,
:func:`patch` (and the page's ``patch.js``, the same rules) applies it.
Paths are the keys and list indices from the document's root joined with
``/``.  The operations:

- ``["s", path, value]``: set the value at ``path`` (a key of an object, or an
  index of a list);
- ``["d", path]``: delete the key at ``path``;
- ``["l", path, start, count, [items]]``: in the list at ``path``, replace the
  ``count`` items from ``start`` with ``items`` (a placement appends a tile, a
  pick takes one tile out of the draft's pool).

The server builds its descriptions so that what did not change is the same
object as before (a placed tile's description is made once; an area nobody
placed on is reused whole), so the diff skips it by identity and costs little
more than what changed.

>>> old = {"version": 1, "tiles": [1, 2], "pool": [5, 6, 7], "gone": 0}
>>> new = {"version": 2, "tiles": [1, 2, 3], "pool": [5, 7]}
>>> ops = diff(old, new)
>>> ops
[['s', 'version', 2], ['l', 'tiles', 2, 0, [3]], ['l', 'pool', 1, 1, []], ['d', 'gone']]
>>> patch(old, ops) == new, old["version"]
(True, 1)
"""

from __future__ import annotations

from typing import Any

Op = list[Any]

#: Lists whose items are replaced whole when they change (small lists of numbers, such as a
#: cell's legal rotations, cost more as item-by-item operations than as the new list).
_ATOMS = (int, float, str, bool, type(None))
_MISSING = object()


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values of the same type: ``True`` and ``1`` differ (Python's ``==`` says
    they are equal; inside lists and objects the descriptions never mix them).

    >>> same(1, True), same([1, 2], [1, 2]), same({"a": None}, {"a": None})
    (False, True, True)
    """
    return a is b or (type(a) is type(b) and bool(a == b))


def diff(old: dict[str, Any], new: dict[str, Any], path: str = "") -> list[Op]:
    """The operations that turn the object ``old`` into ``new`` (neither is changed); with
    ``path``, the two are the objects at that path of a larger document.  ValueError if a changed
    key holds a ``/`` at the root (it cannot be named in a path)."""
    ops: list[Op] = []
    _diff_dict(old, new, path, ops)
    return ops


def _join(path: str, key: str | int) -> str:
    return f"{path}/{key}" if path else str(key)


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    if old is new:
        return
    kind = type(new)
    if kind is not type(old):
        ops.append(["s", path, new])
    elif kind is dict:
        _diff_dict(old, new, path, ops)
    elif kind is list:
        _diff_list(old, new, path, ops)
    elif old != new:
        ops.append(["s", path, new])


def _diff_dict(old: dict[str, Any], new: dict[str, Any], path: str, ops: list[Op]) -> None:
    prefix = path + "/" if path else ""
    for key, value in new.items():
        was = old.get(key, _MISSING)
        if was is value:
            continue
        if "/" in key:  # cannot be named in a path: the whole object goes instead
            if not path:
                raise ValueError(f"key {key!r} cannot be named in a delta")
            ops.append(["s", path, new])
            return
        kind = type(value)
        if kind is not type(was):
            ops.append(["s", prefix + key, value])
        elif kind is dict:
            _diff_dict(was, value, prefix + key, ops)
        elif kind is list:
            _diff_list(was, value, prefix + key, ops)
        elif was != value:
            ops.append(["s", prefix + key, value])
    if old.keys() != new.keys():
        ops.extend(["d", prefix + key] for key in old if key not in new)


def _diff_list(old: list[Any], new: list[Any], path: str, ops: list[Op]) -> None:
    n, m = len(old), len(new)
    # The usual cases first, compared at C speed (items the same object are equal at once): no
    # change, items added at the end (tiles, log lines), items taken from the end.
    if n == m:
        if old == new:
            return
    elif n < m:
        if old == new[:n]:
            ops.append(["l", path, n, 0, new[n:]])
            return
    elif old[:m] == new:
        ops.append(["l", path, m, n - m, []])
        return
    start = 0
    end = min(n, m)
    while start < end and same(old[start], new[start]):
        start += 1
    tail = 0
    while tail < end - start and same(old[n - 1 - tail], new[m - 1 - tail]):
        tail += 1
    removed = n - start - tail
    added = new[start : m - tail]
    if removed != len(added) or (removed > 1 and all(type(x) in _ATOMS for x in added)):
        ops.append(["l", path, start, removed, added])
        return
    for i in range(start, n - tail):
        _diff(old[i], new[i], _join(path, i), ops)


def patch(doc: Any, ops: list[Op]) -> Any:
    """``doc`` with the operations applied; ``doc`` itself is not changed (what an operation
    changes is copied along its path, the rest is shared).  ValueError if an operation does
    not fit the document."""
    root: Any = {"": doc}
    copied: set[int] = {id(root)}
    keep = [root]  # the copies stay alive, so no id in ``copied`` is ever reused
    for op in ops:
        if not isinstance(op, list) or not op or op[0] not in ("s", "d", "l"):
            raise ValueError(f"not a delta operation: {op!r}")
        if not isinstance(op[1], str) or not op[1]:
            raise ValueError(f"not a path: {op[1]!r}")
        keys = ["", *op[1].split("/")]
        parent = root
        for key in keys[:-1]:
            parent = _child_copy(parent, key, copied, keep)
        last = keys[-1]
        if op[0] == "s":
            if len(op) != 3:
                raise ValueError(f"not a delta operation: {op!r}")
            _set(parent, last, op[2])
        elif op[0] == "d":
            if not isinstance(parent, dict) or last not in parent:
                raise ValueError(f"no key to delete at {op[1]!r}")
            del parent[last]
        else:
            target = _child_copy(parent, last, copied, keep)
            start, count, items = op[2:5] if len(op) == 5 else (-1, 0, [])
            if (
                not isinstance(target, list)
                or not isinstance(items, list)
                or not isinstance(start, int)
                or not isinstance(count, int)
                or not 0 <= start <= start + count <= len(target)
            ):
                raise ValueError(f"no list to splice at {op[1]!r}")
            target[start : start + count] = items
    return root[""]


def _index(container: Any, key: str) -> Any:
    if isinstance(container, list):
        if not key.isdigit() or int(key) >= len(container):
            raise ValueError(f"no item {key} in a list of {len(container)}")
        return int(key)
    if not isinstance(container, dict):
        raise ValueError(f"{key!r} is below a value, not an object or a list")
    return key


def _child_copy(parent: Any, key: str, copied: set[int], keep: list[Any]) -> Any:
    index = _index(parent, key)
    if isinstance(parent, dict) and index not in parent:
        raise ValueError(f"no key {key!r}")
    child = parent[index]
    if id(child) not in copied:
        if isinstance(child, dict):
            child = dict(child)
        elif isinstance(child, list):
            child = list(child)
        else:
            return child
        parent[index] = child
        copied.add(id(child))
        keep.append(child)
    return child


def _set(parent: Any, key: str, value: Any) -> None:
    if isinstance(parent, list):
        if not key.isdigit() or int(key) >= len(parent):
            raise ValueError(f"no item {key} in a list of {len(parent)}")
        parent[int(key)] = value
    elif isinstance(parent, dict):
        parent[key] = value
    else:
        raise ValueError(f"{key!r} is below a value, not an object or a list")


def follow(state: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any] | None:
    """What a client holds after a server message: a ``state`` replaces it, a ``delta`` changes
    it (ValueError if the delta starts from another version), anything else leaves it.

    >>> state = {"type": "state", "you": {"seats": []}, "game": {"version": 1, "turn": 1}}
    >>> follow(state, {"type": "delta", "from": 1, "version": 2,
    ...                "ops": [["s", "game/version", 2], ["s", "game/turn", 2]]})["game"]
    {'version': 2, 'turn': 2}
    """
    kind = message.get("type")
    if kind == "state":
        return message
    if kind != "delta":
        return state
    if state is None or state["game"].get("version") != message.get("from"):
        raise ValueError("a delta from a version this client does not hold: ask for the state (sync)")
    return {"type": "state", **patch({"you": state["you"], "game": state["game"]}, message["ops"])}

"""Types of the batched environments' compiled step (dorf/rl/_vector.c), used by dorf.rl.vector only."""

from typing import Any

class Batch:
    def __init__(
        self,
        n: int,
        full_start: int,
        illegal_raise: bool,
        arrays: tuple[Any, ...],
        window: tuple[Any, ...],
        tiles: tuple[Any, ...],
        layout: tuple[Any, ...],
        table: tuple[Any, ...],
        engine: tuple[Any, ...],
        api: object | None,
        duel: tuple[Any, ...] | None = None,
        /,
    ) -> None: ...
    def deal(
        self, i: int, area: Any, task_ids: Any, specs: list[Any], fills: Any, slots: Any, landscapes: Any, /
    ) -> None: ...
    def step(self, actions: Any, /) -> None: ...

def sample(masks: Any, uniforms: Any, out: Any, /) -> None: ...

"""Coalescing of one loop's ``AsyncClient.consume()`` calls into batch consumes."""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

from .errors import ProblemError
from .models import ConsumeResult, Consumption

# Most command ids one batch consume request takes (the route's bound).
MAX_CONSUME_BATCH = 256


class ConsumeBatcher:
    """Coalesces one loop's consumes issued close together into batch requests (issue 37): the
    first waits one turn of the event loop for others to join, and while a batch is on its way
    the next ones gather for the one after it, at most :data:`MAX_CONSUME_BATCH` to a request.
    Each caller gets its own id's answer, or its own ``not_found``; a failed request fails all
    of its callers. A caller cancelled while it waits leaves its id in the batch (it may be
    consumed)."""

    def __init__(
        self,
        send: Callable[[list[str]], Awaitable[list[ConsumeResult]]],
        on_idle: Callable[[], None],
    ) -> None:
        self._send = send
        # Told when the last request ended with nothing waiting, so that its owner may forget it.
        self._on_idle = on_idle
        self._waiting: list[tuple[str, asyncio.Future[Consumption]]] = []
        self._running: asyncio.Task[None] | None = None

    async def consume(self, command_id: str) -> Consumption:
        """Consumes one command id as part of the next batch."""
        answer: asyncio.Future[Consumption] = asyncio.get_running_loop().create_future()
        self._waiting.append((command_id, answer))
        if self._running is None:
            # Kept here, so the task is not collected while it runs.
            self._running = asyncio.ensure_future(self._flush())
        return await asyncio.shield(answer)

    async def _flush(self) -> None:
        try:
            # One turn of the event loop: consumes issued together join this request.
            await asyncio.sleep(0)
            while self._waiting:
                batch = self._waiting[:MAX_CONSUME_BATCH]
                del self._waiting[:MAX_CONSUME_BATCH]
                try:
                    results = await self._send([command_id for command_id, _ in batch])
                except Exception as error:
                    for _, answer in batch:
                        if not answer.done():
                            answer.set_exception(error)
                    continue
                except BaseException:
                    for _, answer in batch:
                        answer.cancel()
                    raise
                for index, (command_id, answer) in enumerate(batch):
                    if answer.done():
                        continue
                    result = results[index] if index < len(results) else None
                    if result is not None and result.consumed is not None and result.sequence is not None:
                        answer.set_result(Consumption(consumed=result.consumed, sequence=result.sequence))
                    else:
                        answer.set_exception(_not_found(command_id))
        finally:
            self._running = None
            # Only when the flush itself was cancelled: those never went out.
            for _, answer in self._waiting:
                answer.cancel()
            self._waiting.clear()
            self._on_idle()


def _not_found(command_id: str) -> ProblemError:
    # What the single consume answers for an id the loop never had, as the server words it.
    return ProblemError(
        {
            "type": "about:blank",
            "title": "Not Found",
            "status": 404,
            "detail": f"no notification {command_id} was journaled for this loop",
            "code": "not_found",
        }
    )

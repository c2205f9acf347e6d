"""The asyncio loop worker: a loop's completions handed to a coroutine, consumed as it returns."""

from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

from .async_client import AsyncClient
from .errors import LoopWorkerError, LoopWorkerFailure
from .models import CompletionUpdate, PendingNotification

AsyncHandler = Callable[[PendingNotification], Awaitable[object]]
"""Acts on one notification; returning consumes it, raising leaves it pending."""

OnError = Callable[[LoopWorkerError], None]
"""Told each notification a worker handed out and did not consume."""

_log = logging.getLogger("process_notifications")


def check_concurrency(concurrency: int) -> None:
    """Refuses a ``concurrency`` that is not a positive integer (both workers take the same)."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive integer, got {concurrency!r}")


def _log_error(error: LoopWorkerError) -> None:
    _log.error("%s", error, exc_info=error.__cause__)


class AsyncLoopWorker:
    """Works through a loop's completions (issue 46), as a job queue's worker does: each
    notification is handed to ``handler`` once, at most ``concurrency`` at a time, and consumed
    once the handler returned; a handler that raises leaves it pending (reported to
    ``on_error``, by default logged on the ``process_notifications`` logger; not retried by this
    run). Consumes are not awaited before the next notification is handed out: they travel in
    the client's batches (:meth:`AsyncClient.consume`) while the next handlers run.

    By default a notification is handed out as soon as it is there, with its ``outcome`` when
    the outcome record came first (``pn-supervise`` sends it first), else with ``None``. With
    ``wait_for_outcome=True`` it is held until its outcome is known, for a supervisor that sends
    its record after the notification (one that sends none then never has it handed out).

    :meth:`run` follows the loop until :meth:`close` (or :meth:`stop`), or until its task is
    cancelled; either way it takes nothing more and waits for the handlers running and their
    consumes (a cancelled run then raises ``CancelledError``). At least once: a process that
    dies after a handler returned and before its consume committed is given that notification
    again by the next run, so handlers should be idempotent (keyed by ``command_id``)."""

    def __init__(
        self,
        client: AsyncClient,
        session_id: str,
        loop_id: str,
        handler: AsyncHandler,
        *,
        concurrency: int = 1,
        wait_for_outcome: bool = False,
        on_error: OnError | None = None,
    ) -> None:
        check_concurrency(concurrency)
        self._client = client
        self._session_id = session_id
        self._loop_id = loop_id
        self._handler = handler
        self._concurrency = concurrency
        self._wait_for_outcome = wait_for_outcome
        self._on_error = on_error or _log_error
        # Handed out and not yet consumed or failed: never handed out again meanwhile.
        self._in_flight: set[str] = set()
        # Each handed-out notification's handler and consume; they never raise.
        self._work: set[asyncio.Task[None]] = set()
        self._follower: asyncio.Task[None] | None = None
        self._stop_requested = False
        self._stopped = asyncio.Event()

    @property
    def stopping(self) -> bool:
        """Whether the worker was told to stop (a long handler may end early: raising leaves its
        notification pending)."""
        return self._stop_requested

    async def run(self) -> None:
        """Follows the loop's completions until :meth:`close` or :meth:`stop` (or cancellation),
        then waits for the handlers running and their consumes. Raises (after that wait) what
        ended the loop's stream for good (the retry policy gave up, or the token was refused).
        Once per worker (else ``RuntimeError``)."""
        if self._follower is not None:
            raise RuntimeError("AsyncLoopWorker.run() was called already: a worker runs once")
        slots = asyncio.Semaphore(self._concurrency)
        self._follower = asyncio.ensure_future(self._follow(slots))
        if self._stop_requested:
            self._follower.cancel()
        cancelled = False
        try:
            await self._follower
        except asyncio.CancelledError:
            # Stopped by close()/stop(), or this run was cancelled: the same wait, then re-raised.
            cancelled = not self._stop_requested
            self._stop_requested = True
        finally:
            # What was handed out finishes, consumes included, also when the stream failed.
            while self._work:
                await asyncio.gather(*self._work, return_exceptions=True)
            self._stopped.set()
        if cancelled:
            raise asyncio.CancelledError()

    def stop(self) -> None:
        """Tells the worker to take nothing more; :meth:`run` returns once the work in flight and
        its consumes are done. Returns at once (call it from a handler, say)."""
        self._stop_requested = True
        if self._follower is not None:
            self._follower.cancel()

    async def close(self) -> None:
        """Stops the worker and waits until :meth:`run` has returned (at once if it never ran)."""
        self.stop()
        if self._follower is not None:
            await self._stopped.wait()

    async def __aenter__(self) -> AsyncLoopWorker:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def _follow(self, slots: asyncio.Semaphore) -> None:
        updates = self._client.completions(self._session_id, self._loop_id)
        try:
            async for item in updates:
                if not self._wanted(item):
                    continue
                await slots.acquire()
                self._start(item.notification, slots)
        finally:
            await updates.aclose()

    def _wanted(self, item: CompletionUpdate) -> bool:
        # Each notification once: on "new", or (wait_for_outcome) with the update that brings its outcome.
        if item.notification.command_id in self._in_flight:
            return False
        return item.notification.outcome is not None if self._wait_for_outcome else item.update == "new"

    def _start(self, notification: PendingNotification, slots: asyncio.Semaphore) -> None:
        self._in_flight.add(notification.command_id)
        task = asyncio.ensure_future(self._handle(notification, slots))
        self._work.add(task)
        task.add_done_callback(self._work.discard)

    async def _handle(self, notification: PendingNotification, slots: asyncio.Semaphore) -> None:
        try:
            try:
                await self._handler(notification)
            except Exception as error:
                self._report("handler_failed", notification, error)
                return
            finally:
                # The slot frees when the handler returns: the next one does not wait for this consume.
                slots.release()
            try:
                await self._client.consume(self._session_id, self._loop_id, notification.command_id)
            except Exception as error:
                self._report("consume_failed", notification, error)
        finally:
            self._in_flight.discard(notification.command_id)

    def _report(self, code: LoopWorkerFailure, notification: PendingNotification, cause: Exception) -> None:
        try:
            self._on_error(LoopWorkerError(code, notification, cause))
        except Exception:
            # A failing on_error does not stop the worker: the notification stays pending all the same.
            _log.exception("on_error raised")

"""The threaded loop worker: a loop's completions handed to a function in threads, consumed as it returns."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from .async_client import AsyncClient
from .async_worker import AsyncLoopWorker, OnError, check_concurrency
from .client import Client
from .models import PendingNotification

Handler = Callable[[PendingNotification], object]
"""Acts on one notification (in a thread of the worker); returning consumes it, raising leaves it pending."""


class LoopWorker:
    """The synchronous twin of :class:`AsyncLoopWorker`: the same arguments and guarantees, with
    ``handler`` a plain function run in a pool of ``concurrency`` threads. :meth:`run` blocks the
    calling thread: it reads the loop's stream and sends the batched consumes there, on an event
    loop of its own, through an :class:`AsyncClient` with ``client``'s settings (base URL, token,
    retry policy, timeout). :meth:`stop` and :meth:`close` may be called from any thread, a
    handler's included (:meth:`stop` there: :meth:`close` waits for the handlers); Ctrl-C in
    :meth:`run` stops it the same way (the work in flight finishes), then raises
    ``KeyboardInterrupt``."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        loop_id: str,
        handler: Handler,
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
        self._on_error = on_error
        # Reentrant: stop() may run in a signal handler of the thread that holds it.
        self._lock = threading.RLock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._worker: AsyncLoopWorker | None = None
        self._stop_requested = False
        self._started = False
        self._done = threading.Event()

    @property
    def stopping(self) -> bool:
        """Whether the worker was told to stop (a long handler may end early: raising leaves its
        notification pending)."""
        return self._stop_requested

    def run(self) -> None:
        """Follows the loop's completions until :meth:`close` or :meth:`stop`, then waits for the
        handlers running and their consumes; raises what ended the loop's stream for good. Once
        per worker (else ``RuntimeError``)."""
        with self._lock:
            if self._started:
                raise RuntimeError("LoopWorker.run() was called already: a worker runs once")
            self._started = True
        try:
            asyncio.run(self._run())
        finally:
            self._done.set()

    def stop(self) -> None:
        """Tells the worker to take nothing more; :meth:`run` returns once the work in flight and
        its consumes are done. Returns at once; any thread."""
        with self._lock:
            self._stop_requested = True
            loop, worker = self._loop, self._worker
        if loop is not None and worker is not None:
            try:
                loop.call_soon_threadsafe(worker.stop)
            except RuntimeError:
                pass  # the loop has closed: run() is over

    def close(self) -> None:
        """Stops the worker and waits until :meth:`run` has returned (at once if it never ran).
        Not from a handler (it would wait for itself): call :meth:`stop` there."""
        self.stop()
        if self._started:
            self._done.wait()

    def __enter__(self) -> LoopWorker:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    async def _run(self) -> None:
        client = self._client
        threads = ThreadPoolExecutor(max_workers=self._concurrency, thread_name_prefix="pn-loop-worker")
        loop = asyncio.get_running_loop()

        async def handle(notification: PendingNotification) -> None:
            await loop.run_in_executor(threads, self._handler, notification)

        try:
            async with AsyncClient(
                client.base_url,
                client.token,
                retry=client.retry_policy,
                request_timeout=client.request_timeout,
                on_retry=client.on_retry,
                max_answer_bytes=client.max_answer_bytes,
                max_event_bytes=client.max_event_bytes,
            ) as reader:
                worker = AsyncLoopWorker(
                    reader,
                    self._session_id,
                    self._loop_id,
                    handle,
                    concurrency=self._concurrency,
                    wait_for_outcome=self._wait_for_outcome,
                    on_error=self._on_error,
                )
                with self._lock:
                    self._loop, self._worker = loop, worker
                    if self._stop_requested:
                        worker.stop()
                await worker.run()
        finally:
            with self._lock:
                self._loop = self._worker = None
            threads.shutdown(wait=True)

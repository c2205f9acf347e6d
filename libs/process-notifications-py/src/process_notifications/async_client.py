"""The asynchronous client: the same surface as :class:`~process_notifications.Client`, with
coroutines and async iterators."""

from __future__ import annotations

import asyncio
import math
from contextlib import aclosing
from types import TracebackType
from typing import Any, AsyncGenerator, Mapping, Sequence, TypeVar

import httpx

from ._base import (
    DEFAULT_MAX_ANSWER_BYTES,
    TRANSPORT_ERRORS,
    BaseClient,
    Call,
    Calls,
    LoopReads,
    OnRetry,
    Retry,
    StreamState,
    check_after_sequence,
    completion_target,
    target_name,
    wait_timeout,
)
from .sse import DEFAULT_MAX_EVENT_BYTES
from .errors import BadAnswerError, CompletionTimeoutError, NetworkError, ProblemError, parse_json
from .consume_batcher import ConsumeBatcher
from .models import (
    ClosedSession,
    CompletionDelivery,
    CompletionUpdate,
    ConsumeResult,
    Consumption,
    JournalPage,
    JournalRecord,
    LifecyclePublication,
    Loop,
    PendingNotification,
    Session,
    SessionCreated,
    SessionToken,
)
from .retry import RetryPolicy
from .sse import ServerSentEvent, SseDecoder
from .tracker import CompletionTracker, LoopEvent

T = TypeVar("T")


class AsyncClient(BaseClient):
    """The asynchronous twin of :class:`~process_notifications.Client`: the same arguments,
    methods, answers, errors and retries; calls are coroutines, ``events()`` and
    ``completions()`` async iterators that end when the task is cancelled (or the caller stops
    iterating and closes them). Use it as ``async with AsyncClient(...) as client`` or call
    :meth:`aclose`."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        retry: RetryPolicy | None = None,
        request_timeout: float = 30.0,
        on_retry: OnRetry | None = None,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        super().__init__(
            base_url,
            token,
            retry=retry,
            request_timeout=request_timeout,
            on_retry=on_retry,
            max_answer_bytes=max_answer_bytes,
            max_event_bytes=max_event_bytes,
        )
        self._http = httpx.AsyncClient()
        # One per loop (and retry setting) with consumes waiting or on their way.
        self._consume_batchers: dict[tuple[str, str, str, float | None], ConsumeBatcher] = {}

    def with_token(self, token: str) -> AsyncClient:
        """A client with the same settings and another bearer token (close it too)."""
        return AsyncClient(
            self.base_url, token, retry=self.retry_policy, request_timeout=self.request_timeout, on_retry=self.on_retry, **self._limits()
        )

    async def aclose(self) -> None:
        """Closes the connections."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.aclose()

    async def create_session(
        self, session_id: str | None = None, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> SessionCreated:
        """As :meth:`Client.create_session`."""
        return await self._send(Calls.create_session(session_id), deadline, retry, on_retry)

    async def get_session(
        self, session_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> Session:
        """As :meth:`Client.get_session`."""
        return await self._send(Calls.get_session(session_id), deadline, retry, on_retry)

    async def rotate_session_token(
        self, session_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> SessionToken:
        """As :meth:`Client.rotate_session_token` (not retried unless ``retry``)."""
        return await self._send(Calls.rotate_session_token(session_id), deadline, retry, on_retry)

    async def close_session(
        self, session_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> ClosedSession:
        """As :meth:`Client.close_session` (idempotent: retried like the other writes)."""
        return await self._send(Calls.close_session(session_id), deadline, retry, on_retry)

    async def open_loop(
        self,
        session_id: str,
        engine: str = "native",
        loop_id: str | None = None,
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> Loop:
        """As :meth:`Client.open_loop`."""
        return await self._send(Calls.open_loop(session_id, engine, loop_id), deadline, retry, on_retry)

    async def get_loop(
        self, session_id: str, loop_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> Loop:
        """As :meth:`Client.get_loop`."""
        return await self._send(Calls.get_loop(session_id, loop_id), deadline, retry, on_retry)

    async def stop_loop(
        self, session_id: str, loop_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> Loop:
        """As :meth:`Client.stop_loop`."""
        return await self._send(Calls.stop_loop(session_id, loop_id), deadline, retry, on_retry)

    async def deliver_completion(
        self,
        notification: Mapping[str, Any],
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> CompletionDelivery:
        """As :meth:`Client.deliver_completion`."""
        return await self._send(Calls.deliver_completion(notification), deadline, retry, on_retry)

    async def publish_lifecycle(
        self, record: Mapping[str, Any], *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> LifecyclePublication:
        """As :meth:`Client.publish_lifecycle`."""
        return await self._send(Calls.publish_lifecycle(record), deadline, retry, on_retry)

    async def pending_notifications(
        self, session_id: str, loop_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> list[PendingNotification]:
        """As :meth:`Client.pending_notifications`."""
        return await self._send(Calls.pending_notifications(session_id, loop_id), deadline, retry, on_retry)

    async def consume(
        self,
        session_id: str,
        loop_id: str,
        command_id: str,
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> Consumption:
        """As :meth:`Client.consume`, but consumes of one loop issued close together (in the same
        turn of the event loop, or while the previous batch is on its way) travel as one
        :meth:`consume_many` request, each answered as if alone: a :class:`Consumption`, or a
        :class:`ProblemError` ``not_found``. A call with its own ``on_retry`` or a policy as
        ``retry`` goes alone, as ``POST .../process-notifications/:command_id/consume``."""
        if on_retry is not None or isinstance(retry, RetryPolicy):
            return await self._send(Calls.consume(session_id, loop_id, command_id), deadline, retry, on_retry)
        # Calls that retry alike share a batch.
        key = (session_id, loop_id, repr(retry), deadline)
        batcher = self._consume_batchers.get(key)
        if batcher is None:

            async def send(command_ids: list[str]) -> list[ConsumeResult]:
                return await self.consume_many(session_id, loop_id, command_ids, deadline=deadline, retry=retry)

            def forget() -> None:
                self._consume_batchers.pop(key, None)

            batcher = ConsumeBatcher(send, forget)
            self._consume_batchers[key] = batcher
        return await batcher.consume(command_id)

    async def consume_many(
        self,
        session_id: str,
        loop_id: str,
        command_ids: Sequence[str],
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> list[ConsumeResult]:
        """As :meth:`Client.consume_many`."""
        return await self._send(Calls.consume_many(session_id, loop_id, command_ids), deadline, retry, on_retry)

    async def journal(
        self,
        session_id: str,
        after: int = 0,
        limit: int = 100,
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> JournalPage:
        """As :meth:`Client.journal`."""
        return await self._send(Calls.journal(session_id, after, limit), deadline, retry, on_retry)

    async def health(self, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None) -> bool:
        """As :meth:`Client.health`."""
        return await self._send(Calls.health(), deadline, retry, on_retry)

    def events(
        self,
        session_id: str,
        last_event_id: int | str = 0,
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> AsyncGenerator[JournalRecord, None]:
        """As :meth:`Client.events`, an async iterator; cancelling the task ends it."""
        policy = self._policy(retry, True)
        records = self._events(session_id, str(last_event_id), policy, on_retry)
        return records if deadline is None else _until(records, deadline)

    def completions(
        self,
        session_id: str,
        loop_id: str,
        after_sequence: int | None = None,
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> AsyncGenerator[CompletionUpdate, None]:
        """As :meth:`Client.completions`, an async iterator; cancelling the task ends it."""
        check_after_sequence(after_sequence)
        updates = self._completions(session_id, loop_id, after_sequence, LoopReads.of(retry, None, on_retry))
        return updates if deadline is None else _until(updates, deadline)

    async def wait_for_completion(
        self,
        session_id: str,
        loop_id: str,
        *,
        command_id: str | None = None,
        process_handle: str | None = None,
        timeout: float | None,
        wait_for_outcome: bool = True,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> PendingNotification:
        """As :meth:`Client.wait_for_completion`."""
        matches = completion_target(command_id, process_handle)
        timeout = wait_timeout(timeout, deadline)
        how = LoopReads.of(retry, None, on_retry)
        found: list[PendingNotification] = []

        async def wait() -> PendingNotification:
            async with aclosing(self._completions(session_id, loop_id, None, how)) as updates:
                async for item in updates:
                    if not matches(item.notification):
                        continue
                    found[:] = [item.notification]
                    if item.notification.outcome is not None or not wait_for_outcome:
                        return item.notification
            raise RuntimeError("the completions stream ended")  # it does not: it reconnects

        try:
            return await asyncio.wait_for(wait(), timeout)
        except asyncio.TimeoutError:
            if found:
                return found[0]
            what = target_name(command_id, process_handle)
            # No stream open at the timeout: nothing could have come; the caller is told why.
            no_answer = how.state.no_answer(self.base_url, f"waited {timeout} s for {what} in loop {loop_id}")
            if no_answer is not None:
                raise no_answer
            raise CompletionTimeoutError(
                f"no notification for {what} in loop {loop_id} within {timeout} s", timeout or 0.0
            ) from None

    # -- the sending --------------------------------------------------------------------------

    async def _send(self, call: Call[T], deadline: float | None, retry: Retry, on_retry: OnRetry | None) -> T:
        """One call, retried as the policy says; every attempt sends the identical bytes."""
        policy = self._policy(retry, call.retry_by_default)
        clock = policy or self.retry_policy
        until = None if deadline is None else clock.now() + deadline
        headers = self._headers("application/json", call.body)
        attempt = 0
        while True:
            attempt += 1
            try:
                # No attempt outlives the deadline either.
                timeout = self.request_timeout if until is None else max(0.001, min(self.request_timeout, until - clock.now()))
                url = self._url(call.path)
                try:
                    # The whole exchange, not each read: a server trickling bytes holds it no longer.
                    response, text = await asyncio.wait_for(self._exchange(call, url, headers, timeout), timeout)
                except asyncio.TimeoutError as error:
                    raise self._late() from error
                except TRANSPORT_ERRORS as error:
                    raise self._network_error(error) from error
                if not response.is_success:
                    raise self._problem(response, text)
                return call.parse(parse_json(text, "answer_not_json", f"the answer of {call.method} {url}"))
            except (ProblemError, NetworkError) as error:
                if policy is None or not policy.should_retry(error, attempt):
                    raise
                delay = policy.delay(attempt, error)
                if until is not None and policy.now() + delay >= until:
                    raise
                self._notify(policy, call.operation, attempt, error, delay, on_retry)
                await policy.async_sleep(delay)

    async def _exchange(
        self, call: Call[T], url: str, headers: dict[str, str], timeout: float
    ) -> tuple[httpx.Response, str]:
        """One attempt: the answer and its whole body as text, at most ``max_answer_bytes``
        (else :class:`BadAnswerError`); the caller bounds its time."""
        async with self._http.stream(call.method, url, content=call.body, headers=headers, timeout=timeout) as response:
            return response, await self._read(response)

    async def _read(self, response: httpx.Response) -> str:
        self._declared_too_large(response)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            # No time bound here: the caller's wait_for is the attempt's.
            self._took_chunk(response, size, math.inf)
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", "replace")

    async def _error_text(self, response: httpx.Response) -> str:
        """An error answer of a stream, bounded as every answer is; one too large to read, or too
        slow, is judged by its status alone."""
        try:
            return await asyncio.wait_for(self._read(response), self.request_timeout)
        except (BadAnswerError, asyncio.TimeoutError):
            return ""

    # -- the loop's side: the only place that knows which route completions() reads --------------

    async def _completions(
        self, session_id: str, loop_id: str, after_sequence: int | None, how: LoopReads
    ) -> AsyncGenerator[CompletionUpdate, None]:
        # One request (the loop's stream, resumed after its last event when it drops), constant
        # work per event: the stream itself says new, outcome and consumed.
        tracker = CompletionTracker(after_sequence)
        path = Calls.loop_events_path(session_id, loop_id)
        position = None if after_sequence is None else str(after_sequence)
        policy = self._policy(how.retry, True)
        async with aclosing(self._stream(path, "loop_events", position, policy, how.on_retry, how.state)) as events:
            async for event in events:
                loop_event = LoopEvent.of(event)
                update = None if loop_event is None else tracker.take(loop_event)
                if update is not None:
                    yield update

    async def _events(
        self, session_id: str, last_event_id: str, policy: RetryPolicy | None, on_retry: OnRetry | None
    ) -> AsyncGenerator[JournalRecord, None]:
        async with aclosing(self._stream(Calls.events_path(session_id), "events", last_event_id, policy, on_retry)) as events:
            async for event in events:
                yield JournalRecord.from_json(parse_json(event.data, "event_not_json", "an event of the session stream"))

    async def _stream(
        self,
        path: str,
        operation: str,
        last_event_id: str | None,
        policy: RetryPolicy | None,
        on_retry: OnRetry | None,
        state: StreamState | None = None,
    ) -> AsyncGenerator[ServerSentEvent, None]:
        """The server-sent events at ``path`` after ``last_event_id`` (none: where the route
        starts), reconnecting after the last event id when the stream ends or fails."""
        failures = 0
        while True:
            timeout = httpx.Timeout(self.request_timeout, read=None)
            headers = self._headers("text/event-stream", last_event_id=last_event_id)
            try:
                try:
                    async with self._http.stream(
                        "GET", self._url(path), headers=headers, timeout=timeout
                    ) as response:
                        if not response.is_success:
                            raise self._problem(response, await self._error_text(response))
                        if state is not None:
                            state.answered()
                        decoder = SseDecoder(self.max_event_bytes)
                        async for text in response.aiter_text():
                            for event in decoder.push(text):
                                if event.id is not None:
                                    last_event_id = event.id
                                failures = 0
                                yield event
                except TRANSPORT_ERRORS as error:
                    raise self._network_error(error) from error
            except (ProblemError, NetworkError) as failure:
                if state is not None:
                    state.failed(failure)
                failures += 1
                if policy is None or not policy.should_retry(failure, failures):
                    raise
                delay = policy.delay(failures, failure)
                self._notify(policy, operation, failures, failure, delay, on_retry)
                await policy.async_sleep(delay)
                continue
            if state is not None:
                state.open = False
            if policy is None:
                return


async def _until(items: AsyncGenerator[T, None], deadline: float) -> AsyncGenerator[T, None]:
    """``items`` until ``deadline`` seconds have passed; then the iteration ends quietly."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    async with aclosing(items) as source:
        while True:
            remaining = end - loop.time()
            if remaining <= 0:
                return
            try:
                item = await asyncio.wait_for(source.__anext__(), remaining)
            except (StopAsyncIteration, asyncio.TimeoutError):
                return
            yield item

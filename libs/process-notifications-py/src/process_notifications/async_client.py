"""The asynchronous client, and the one description of both clients: ``client.py`` (the
synchronous :class:`Client`) is generated from this file by ``scripts/generate_sync.py``. Edit
this file, then run ``/usr/bin/python3 scripts/generate_sync.py``; what the two do differently
lives in ``_async_transport.py`` and ``_sync_transport.py``, and between ``# async-only``
markers here."""

from __future__ import annotations

from contextlib import aclosing
from types import TracebackType
from typing import Any, AsyncGenerator, Mapping, Sequence, TypeVar

import httpx

from ._async_transport import error_text, exchange, wait_within, within
from ._base import (
    DEFAULT_MAX_ANSWER_BYTES,
    STREAM_SLACK,
    STREAM_SLACK_SHARE,
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
from .errors import CompletionTimeoutError, NetworkError, ProblemError, parse_json
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
from .sse import DEFAULT_MAX_EVENT_BYTES, ServerSentEvent, SseDecoder
from .tracker import CompletionTracker, LoopEvent
from .vocabulary import LoopEngine

# async-only: begin (coalescing consumes takes an event loop)
from .consume_batcher import ConsumeBatcher

# async-only: end

T = TypeVar("T")


class AsyncClient(BaseClient):
    """A typed, asynchronous client of the process notifications REST API (v1), on ``httpx``:
    calls are coroutines, ``events()`` and ``completions()`` async iterators that also end when
    the task is cancelled. Use it as ``async with AsyncClient(...) as client`` or call
    :meth:`aclose`. :class:`~process_notifications.Client` is its synchronous twin: the same
    arguments, methods, answers, errors and retries.

    ``AsyncClient(base_url, token=None, *, retry=None, request_timeout=30.0, on_retry=None,
    max_answer_bytes=67108864, max_event_bytes=1048576)``: ``token`` is a session's token or the
    admin token; ``retry`` the :class:`RetryPolicy` of the calls that retry; a request whose whole
    answer (connecting, headers, body) has not come after ``request_timeout`` seconds counts as a
    network error; ``on_retry`` is told each failed attempt that will be retried; past
    ``max_answer_bytes`` of an answer or ``max_event_bytes`` of an event of a stream the client
    stops reading and raises :class:`BadAnswerError`.

    Every call takes ``deadline`` (seconds: no attempt starts, and no wait ends, after it; the
    last attempt's error is raised), ``retry`` (``True``, ``False`` or a policy) and
    ``on_retry``. Reads fail fast unless ``retry=True``; ``deliver_completion``,
    ``publish_lifecycle``, ``consume``, ``consume_many``, ``stop_loop`` and ``close_session``
    retry with the identical body while the contract says so; ``create_session``, ``open_loop``
    and ``rotate_session_token`` are not retried (not idempotent) unless ``retry=True``. An error
    answer raises :class:`ProblemError`, no answer (in time) :class:`NetworkError`, an answer too
    large or not JSON :class:`BadAnswerError` (never retried).
    """

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
        # async-only: begin
        # One per loop (and retry setting) with consumes waiting or on their way.
        self._consume_batchers: dict[tuple[str, str, str, float | None], ConsumeBatcher] = {}
        # async-only: end

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
        """``POST /v1/sessions`` (admin token): a new session and its token, shown once."""
        return await self._send(Calls.create_session(session_id), deadline, retry, on_retry)

    async def get_session(
        self, session_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> Session:
        """``GET /v1/sessions/:sid``: the session and its loops. A read: fails fast unless ``retry``."""
        return await self._send(Calls.get_session(session_id), deadline, retry, on_retry)

    async def rotate_session_token(
        self, session_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> SessionToken:
        """``POST /v1/sessions/:sid/token`` (the admin token or the session's own): a new token for
        the session, shown once; the old one answers 401 ``unauthorized`` from now on. Not retried
        unless ``retry``: an answer lost on the way would leave a token nobody has. A client
        holding the old token goes on with ``with_token(answer.token)``."""
        return await self._send(Calls.rotate_session_token(session_id), deadline, retry, on_retry)

    async def close_session(
        self, session_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> ClosedSession:
        """``POST /v1/sessions/:sid/close`` (the admin token or the session's own): its tokens
        answer 401 from now on, its writes 409 ``session_closed`` (final: never retried), and the
        admin token still reads it. Idempotent, so retried like the other writes: every close
        answers the same ``closed_at``."""
        return await self._send(Calls.close_session(session_id), deadline, retry, on_retry)

    async def open_loop(
        self,
        session_id: str,
        engine: LoopEngine = "native",
        loop_id: str | None = None,
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> Loop:
        """``POST /v1/sessions/:sid/loops``: opens a loop (``native`` unless told otherwise)."""
        return await self._send(Calls.open_loop(session_id, engine, loop_id), deadline, retry, on_retry)

    async def get_loop(
        self, session_id: str, loop_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> Loop:
        """``GET /v1/sessions/:sid/loops/:lid``. A read: fails fast unless ``retry``."""
        return await self._send(Calls.get_loop(session_id, loop_id), deadline, retry, on_retry)

    async def stop_loop(
        self, session_id: str, loop_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> Loop:
        """``POST /v1/sessions/:sid/loops/:lid/stop``: later deliveries answer ``stopped``."""
        return await self._send(Calls.stop_loop(session_id, loop_id), deadline, retry, on_retry)

    async def deliver_completion(
        self,
        notification: Mapping[str, Any],
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> CompletionDelivery:
        """``POST /v1/sessions/:sid/process-completions``: returns once the loop answered
        ``accepted`` or ``duplicate``. Retried with the identical body while the contract says so;
        ``delivery_stopped`` with cause ``loop_stopped`` is raised (it is journaled, and final)."""
        return await self._send(Calls.deliver_completion(notification), deadline, retry, on_retry)

    async def publish_lifecycle(
        self, record: Mapping[str, Any], *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> LifecyclePublication:
        """``POST /v1/sessions/:sid/process-lifecycle``: journals a lifecycle record, idempotent by ``event_id``."""
        return await self._send(Calls.publish_lifecycle(record), deadline, retry, on_retry)

    async def pending_notifications(
        self, session_id: str, loop_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> list[PendingNotification]:
        """``GET .../loops/:lid/process-notifications``: the pending set in acceptance order, each
        with its ``sequence`` and ``outcome``. A read: fails fast unless ``retry``."""
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
        """``POST .../process-notifications/:command_id/consume``: frees the notification's place;
        ``consumed`` is False the second time; an id never journaled for the loop is 404
        ``not_found``. The sync client sends each call as one request: it has nothing to coalesce
        with (use :meth:`consume_many` for several). The async client sends consumes of one loop
        issued close together (in the same turn of the event loop, or while the previous batch is
        on its way) as one :meth:`consume_many` request, each answered as if alone: a
        :class:`Consumption`, or a :class:`ProblemError` ``not_found``; a call with its own
        ``on_retry`` or a policy as ``retry`` goes alone."""
        # async-only: begin
        if on_retry is None and not isinstance(retry, RetryPolicy):
            return await self._consume_together(session_id, loop_id, command_id, deadline, retry)
        # async-only: end
        return await self._send(Calls.consume(session_id, loop_id, command_id), deadline, retry, on_retry)

    # async-only: begin
    async def _consume_together(
        self, session_id: str, loop_id: str, command_id: str, deadline: float | None, retry: Retry
    ) -> Consumption:
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

    # async-only: end

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
        """``POST .../process-notifications/consume``: consumes 1 to 256 notifications of a loop
        (else ``ValueError``) in one request and one journal transaction, with a result per
        command id in the order given: ``consumed`` and ``sequence``, or ``code`` ``not_found``.
        Retried whole, like :meth:`consume`: what committed answers ``consumed`` False on the retry."""
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
        """``GET /v1/sessions/:sid/journal``: the records after sequence ``after`` (at most
        ``limit``, 1000 at most). A read: fails fast unless ``retry``."""
        return await self._send(Calls.journal(session_id, after, limit), deadline, retry, on_retry)

    async def health(self, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None) -> bool:
        """``GET /healthz``: True when the server and its database answer 200. A read: fails fast unless ``retry``."""
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
        """``GET /v1/sessions/:sid/events``: the session's journal records after ``last_event_id``
        as they commit. When the stream ends or fails it reconnects with ``Last-Event-ID``, so no
        record is missed or repeated (``retry=False``: it does not). It ends when the caller stops
        iterating (or closes it, or cancels its task), or quietly at ``deadline`` seconds."""
        policy = self._policy(retry, True)
        return within(
            deadline, self.retry_policy, lambda until: self._events(session_id, str(last_event_id), policy, until, on_retry)
        )

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
        """The loop's completions (spec section 14): first the notifications pending now (the
        loop's unconsumed ones), in acceptance order, then each one journaled for the loop later
        (one refused as ``inbox_full`` included), each once as ``update == "new"``, across
        reconnects and server restarts; a notification whose outcome record is journaled after it
        comes once more as ``update == "outcome"`` (also when both were journaled before the
        call). ``after_sequence`` resumes: only notifications journaled after it are new, and an
        outcome journaled after it of one the caller had is yielded. One request for the whole
        iteration (the loop's stream, ``GET .../loops/:lid/events``, resumed after its last
        event when it drops), constant work per item. Its reads retry as deliveries do
        (``retry=False``: they fail fast, and a dropped stream raises; a policy: with it). It
        ends when the caller stops iterating (or closes it, or cancels its task), or quietly at
        ``deadline`` seconds."""
        check_after_sequence(after_sequence)
        return within(
            deadline,
            self.retry_policy,
            lambda until: self._completions(session_id, loop_id, after_sequence, LoopReads.of(retry, until, on_retry)),
        )

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
        """Waits for one notification of the loop, by ``command_id`` or by ``process_handle``
        (exactly one, else ``ValueError``), with one deadline of ``timeout`` seconds for it and its
        outcome (``None``: no deadline). Returns the notification as soon as it and its outcome
        are known (at once, without the outcome, when ``wait_for_outcome`` is False), or at the
        timeout with ``outcome`` ``None`` if only the notification came; raises
        :class:`CompletionTimeoutError` (a ``TimeoutError``) when no notification came. One
        journaled before the call and not consumed is found, not waited for. It reads the loop's
        stream, as ``completions()`` does: one request, constant work per notification passed.
        When the server did not answer (no stream open at the timeout) it raises that failure
        instead; a failure the retry policy does not retry (or retries no more) is raised at
        once, and a stream the server ended with ``retry=False`` raises ``RuntimeError``.
        ``deadline``, when given, bounds the wait as ``timeout`` does (the sooner of the two);
        ``retry`` is ``completions()``'s."""
        matches = completion_target(command_id, process_handle)
        timeout = wait_timeout(timeout, deadline)
        state = StreamState()
        found: list[PendingNotification] = []

        async def wait(until: float | None) -> PendingNotification | None:
            how = LoopReads.of(retry, until, on_retry, state)
            async with aclosing(self._completions(session_id, loop_id, None, how)) as updates:
                async for item in updates:
                    if not matches(item.notification):
                        continue
                    found[:] = [item.notification]
                    if item.notification.outcome is not None or not wait_for_outcome:
                        return item.notification
            if state.ended:
                raise RuntimeError("the completions stream ended")
            return None  # the timeout passed

        notification = await wait_within(timeout, self.retry_policy, wait)
        if notification is not None:
            return notification
        if found:
            return found[0]
        what = target_name(command_id, process_handle)
        # No stream open at the timeout: nothing could have come; the caller is told why.
        no_answer = state.no_answer(self.base_url, f"waited {timeout} s for {what} in loop {loop_id}")
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
                response, text = await exchange(self, self._http, call, url, headers, timeout)
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
        async with aclosing(self._stream(path, "loop_events", position, policy, how.until, how.on_retry, how.state)) as events:
            async for event in events:
                loop_event = LoopEvent.of(event)
                update = None if loop_event is None else tracker.take(loop_event)
                if update is not None:
                    yield update

    async def _events(
        self, session_id: str, last_event_id: str, policy: RetryPolicy | None, until: float | None, on_retry: OnRetry | None
    ) -> AsyncGenerator[JournalRecord, None]:
        async with aclosing(self._stream(Calls.events_path(session_id), "events", last_event_id, policy, until, on_retry)) as events:
            async for event in events:
                yield JournalRecord.from_json(parse_json(event.data, "event_not_json", "an event of the session stream"))

    async def _stream(
        self,
        path: str,
        operation: str,
        last_event_id: str | None,
        policy: RetryPolicy | None,
        until: float | None,
        on_retry: OnRetry | None,
        state: StreamState | None = None,
    ) -> AsyncGenerator[ServerSentEvent, None]:
        """The server-sent events at ``path`` after ``last_event_id`` (none: where the route
        starts), reconnecting after the last event id when the stream ends or fails, and ending
        at ``until`` (on the retry policy's clock; the async client passes none: it is cancelled)."""
        clock = self.retry_policy
        failures = 0
        while True:
            if until is not None and clock.now() >= until:
                return
            read_timeout = None if until is None else max(0.001, until - clock.now())
            timeout = httpx.Timeout(self.request_timeout, read=read_timeout)
            headers = self._headers("text/event-stream", last_event_id=last_event_id)
            reopen = False
            try:
                try:
                    async with self._http.stream("GET", self._url(path), headers=headers, timeout=timeout) as response:
                        if not response.is_success:
                            raise self._problem(response, await error_text(self, response))
                        if state is not None:
                            state.answered()
                        decoder = SseDecoder(self.max_event_bytes)
                        async for text in response.aiter_text():
                            for event in decoder.push(text):
                                if event.id is not None:
                                    last_event_id = event.id
                                failures = 0
                                yield event
                            if until is not None:
                                remaining = until - clock.now()
                                if remaining <= 0:
                                    return
                                # This stream's reads may run past the deadline: reopen it, resuming.
                                slack = max(STREAM_SLACK, STREAM_SLACK_SHARE * (read_timeout or 0.0))
                                if read_timeout is not None and read_timeout - remaining > slack:
                                    reopen = True
                                    break
                except TRANSPORT_ERRORS as error:
                    if until is not None and isinstance(error, httpx.ReadTimeout) and clock.now() >= until - 0.001:
                        return
                    raise self._network_error(error) from error
            except (ProblemError, NetworkError) as failure:
                if state is not None:
                    state.failed(failure)
                if until is not None and clock.now() >= until:
                    return
                failures += 1
                if policy is None or not policy.should_retry(failure, failures):
                    raise
                delay = policy.delay(failures, failure)
                if until is not None:
                    delay = min(delay, max(0.0, until - clock.now()))
                self._notify(policy, operation, failures, failure, delay, on_retry)
                await policy.async_sleep(delay)
                continue
            if state is not None:
                state.open = False
            if policy is None and not reopen:
                if state is not None:
                    state.ended = True
                return

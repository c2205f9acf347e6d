"""The synchronous client."""

from __future__ import annotations

import socket
import threading
from types import TracebackType
from typing import Any, Generator, Mapping, Sequence, TypeVar

import httpx

from ._base import (
    DEFAULT_MAX_ANSWER_BYTES,
    attempt_clock,
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
from .sse import DEFAULT_MAX_EVENT_BYTES
from .errors import BadAnswerError, CompletionTimeoutError, NetworkError, ProblemError, parse_json
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


class _Watchdog:
    """Cuts an attempt's connection (shuts its socket down) once ``seconds`` have passed, unless
    cancelled first: httpx bounds each sync read by the timeout the request began with, not by
    the time left, so a server sending a byte now and then would hold the call for ever.

    It learns the socket from the ``trace`` extension when the attempt opens a connection (so the
    status line and headers are bounded too), and from the answer's ``network_stream`` extension
    (a pooled connection's, whose status line and headers are bounded by each read's timeout)."""

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._done = False
        self._socket: socket.socket | None = None
        self.expired = False
        """Whether the time ran out: what was read then is not the whole answer."""
        self._timer = threading.Timer(max(0.0, seconds), self._expire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's ``trace`` extension: a new connection (TCP, then TLS over it) is watched."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self._watch(info.get("return_value"))

    def watch(self, response: httpx.Response) -> None:
        """Watches the connection the answer came on."""
        self._watch(response.extensions.get("network_stream"))

    def _watch(self, stream: Any) -> None:
        found = None if stream is None else stream.get_extra_info("socket")
        if not isinstance(found, socket.socket):
            return
        with self._lock:
            self._socket = found
        if self.expired:
            self._cut()

    def _expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
        self._cut()

    def _cut(self) -> None:
        with self._lock:
            if self._done or self._socket is None:
                return
            try:
                self._socket.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # Closed meanwhile: nothing to cut.

    def cancel(self) -> None:
        """The attempt ended: the connection is left as it is (back in the pool, if whole)."""
        with self._lock:
            self._done = True
        self._timer.cancel()


class Client(BaseClient):
    """A typed, synchronous client of the process notifications REST API (v1), on ``httpx``.

    ``Client(base_url, token=None, *, retry=None, request_timeout=30.0, on_retry=None,
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
    and ``rotate_session_token`` are not retried (not idempotent) unless ``retry=True``. An error answer raises :class:`ProblemError`, no answer
    (in time) :class:`NetworkError`, an answer too large or not JSON :class:`BadAnswerError`
    (never retried).
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
        self._http = httpx.Client()

    def with_token(self, token: str) -> Client:
        """A client with the same settings and another bearer token (close it too)."""
        return Client(
            self.base_url, token, retry=self.retry_policy, request_timeout=self.request_timeout, on_retry=self.on_retry, **self._limits()
        )

    def close(self) -> None:
        """Closes the connections."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def create_session(
        self, session_id: str | None = None, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> SessionCreated:
        """``POST /v1/sessions`` (admin token): a new session and its token, shown once."""
        return self._send(Calls.create_session(session_id), deadline, retry, on_retry)

    def get_session(
        self, session_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> Session:
        """``GET /v1/sessions/:sid``: the session and its loops. A read: fails fast unless ``retry``."""
        return self._send(Calls.get_session(session_id), deadline, retry, on_retry)

    def rotate_session_token(
        self, session_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> SessionToken:
        """``POST /v1/sessions/:sid/token`` (the admin token or the session's own): a new token for
        the session, shown once; the old one answers 401 ``unauthorized`` from now on. Not retried
        unless ``retry``: an answer lost on the way would leave a token nobody has. A client
        holding the old token goes on with ``with_token(answer.token)``."""
        return self._send(Calls.rotate_session_token(session_id), deadline, retry, on_retry)

    def close_session(
        self, session_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> ClosedSession:
        """``POST /v1/sessions/:sid/close`` (the admin token or the session's own): its tokens
        answer 401 from now on, its writes 409 ``session_closed`` (final: never retried), and the
        admin token still reads it. Idempotent, so retried like the other writes: every close
        answers the same ``closed_at``."""
        return self._send(Calls.close_session(session_id), deadline, retry, on_retry)

    def open_loop(
        self,
        session_id: str,
        engine: str = "native",
        loop_id: str | None = None,
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> Loop:
        """``POST /v1/sessions/:sid/loops``: opens a loop (``native`` unless told otherwise)."""
        return self._send(Calls.open_loop(session_id, engine, loop_id), deadline, retry, on_retry)

    def get_loop(
        self, session_id: str, loop_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> Loop:
        """``GET /v1/sessions/:sid/loops/:lid``. A read: fails fast unless ``retry``."""
        return self._send(Calls.get_loop(session_id, loop_id), deadline, retry, on_retry)

    def stop_loop(
        self, session_id: str, loop_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> Loop:
        """``POST /v1/sessions/:sid/loops/:lid/stop``: later deliveries answer ``stopped``."""
        return self._send(Calls.stop_loop(session_id, loop_id), deadline, retry, on_retry)

    def deliver_completion(
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
        return self._send(Calls.deliver_completion(notification), deadline, retry, on_retry)

    def publish_lifecycle(
        self, record: Mapping[str, Any], *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> LifecyclePublication:
        """``POST /v1/sessions/:sid/process-lifecycle``: journals a lifecycle record, idempotent by ``event_id``."""
        return self._send(Calls.publish_lifecycle(record), deadline, retry, on_retry)

    def pending_notifications(
        self, session_id: str, loop_id: str, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None
    ) -> list[PendingNotification]:
        """``GET .../loops/:lid/process-notifications``: the pending set in acceptance order, each
        with its ``sequence`` and ``outcome``. A read: fails fast unless ``retry``."""
        return self._send(Calls.pending_notifications(session_id, loop_id), deadline, retry, on_retry)

    def consume(
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
        ``not_found``. Each call is one request: a sync client has nothing to coalesce with (use
        :meth:`consume_many` for several)."""
        return self._send(Calls.consume(session_id, loop_id, command_id), deadline, retry, on_retry)

    def consume_many(
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
        return self._send(Calls.consume_many(session_id, loop_id, command_ids), deadline, retry, on_retry)

    def journal(
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
        return self._send(Calls.journal(session_id, after, limit), deadline, retry, on_retry)

    def health(self, *, deadline: float | None = None, retry: Retry = None, on_retry: OnRetry | None = None) -> bool:
        """``GET /healthz``: True when the server and its database answer 200. A read: fails fast unless ``retry``."""
        return self._send(Calls.health(), deadline, retry, on_retry)

    def events(
        self,
        session_id: str,
        last_event_id: int | str = 0,
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> Generator[JournalRecord, None, None]:
        """``GET /v1/sessions/:sid/events``: the session's journal records after ``last_event_id``
        as they commit. When the stream ends or fails it reconnects with ``Last-Event-ID``, so no
        record is missed or repeated (``retry=False``: it does not). It ends when the caller stops
        iterating (or closes it), or quietly at ``deadline`` seconds."""
        policy = self._policy(retry, True)
        until = None if deadline is None else self.retry_policy.now() + deadline
        return self._events(session_id, str(last_event_id), policy, until, on_retry)

    def completions(
        self,
        session_id: str,
        loop_id: str,
        after_sequence: int | None = None,
        *,
        deadline: float | None = None,
        retry: Retry = None,
        on_retry: OnRetry | None = None,
    ) -> Generator[CompletionUpdate, None, None]:
        """The loop's completions (spec section 14): first the notifications pending now (the
        loop's unconsumed ones), in acceptance order, then each one journaled for the loop later
        (one refused as ``inbox_full`` included), each once as ``update == "new"``, across
        reconnects and server restarts; a notification whose outcome record is journaled after it
        comes once more as ``update == "outcome"`` (also when both were journaled before the
        call). ``after_sequence`` resumes: only notifications journaled after it are new, and an
        outcome journaled after it of one the caller had is yielded. One request for the whole
        iteration (the loop's stream, ``GET .../loops/:lid/events``, resumed after its last
        event when it drops), constant work per item. Its reads retry as deliveries do (``retry=False``: they fail fast, and a dropped
        stream raises; a policy: with it). It ends when the caller stops iterating (or closes it),
        or quietly at ``deadline`` seconds."""
        check_after_sequence(after_sequence)
        until = None if deadline is None else self.retry_policy.now() + deadline
        return self._completions(session_id, loop_id, after_sequence, LoopReads.of(retry, until, on_retry))

    def wait_for_completion(
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
        stream, as ``completions()`` does: one request, constant work per notification passed. ``deadline``, when given, bounds the
        wait as ``timeout`` does (the sooner of the two); ``retry`` is ``completions()``'s."""
        matches = completion_target(command_id, process_handle)
        timeout = wait_timeout(timeout, deadline)
        until = None if timeout is None else self.retry_policy.now() + timeout
        found: PendingNotification | None = None
        how = LoopReads.of(retry, until, on_retry)
        updates = self._completions(session_id, loop_id, None, how)
        try:
            for item in updates:
                if not matches(item.notification):
                    continue
                found = item.notification
                if found.outcome is not None or not wait_for_outcome:
                    return found
        finally:
            updates.close()
        if found is not None:
            return found
        what = target_name(command_id, process_handle)
        # No stream open at the timeout: nothing could have come; the caller is told why.
        no_answer = how.state.no_answer(self.base_url, f"waited {timeout} s for {what} in loop {loop_id}")
        if no_answer is not None:
            raise no_answer
        raise CompletionTimeoutError(f"no notification for {what} in loop {loop_id} within {timeout} s", timeout or 0.0)

    # -- the sending --------------------------------------------------------------------------

    def _send(
        self, call: Call[T], deadline: float | None, retry: Retry, on_retry: OnRetry | None, until: float | None = None
    ) -> T:
        """One call, retried as the policy says; every attempt sends the identical bytes."""
        policy = self._policy(retry, call.retry_by_default)
        clock = policy or self.retry_policy
        if until is None and deadline is not None:
            until = clock.now() + deadline
        headers = self._headers("application/json", call.body)
        attempt = 0
        while True:
            attempt += 1
            try:
                # No attempt outlives the deadline either.
                timeout = self.request_timeout if until is None else max(0.001, min(self.request_timeout, until - clock.now()))
                # The whole exchange, not each read: a server trickling bytes holds it no longer.
                ends = attempt_clock() + timeout
                url = self._url(call.path)
                watchdog = _Watchdog(timeout)
                try:
                    with self._http.stream(
                        call.method,
                        url,
                        content=call.body,
                        headers=headers,
                        timeout=timeout,
                        extensions={"trace": watchdog.trace},
                    ) as response:
                        text = self._read(response, ends, watchdog)
                except TRANSPORT_ERRORS as error:
                    late = watchdog.expired or attempt_clock() >= ends
                    raise (self._late() if late else self._network_error(error)) from error
                finally:
                    watchdog.cancel()
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
                policy.sleep(delay)

    def _read(self, response: httpx.Response, ends: float, watchdog: _Watchdog) -> str:
        """The answer's whole body as text: at most ``max_answer_bytes``, by ``ends`` (on
        :func:`attempt_clock`'s clock), else :class:`BadAnswerError` or :class:`NetworkError`.
        ``watchdog`` cuts the connection at ``ends``, so a read blocked then returns at once."""
        watchdog.watch(response)
        self._declared_too_large(response)
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            self._took_chunk(response, size, ends)
            chunks.append(chunk)
        # A body that ends with the connection ends early when the watchdog cuts it: not an answer.
        if watchdog.expired:
            raise self._late()
        return b"".join(chunks).decode("utf-8", "replace")

    def _error_text(self, response: httpx.Response) -> str:
        """An error answer of a stream, bounded as every answer is; one too large (or too slow)
        to read is judged by its status alone."""
        watchdog = _Watchdog(self.request_timeout)
        try:
            return self._read(response, attempt_clock() + self.request_timeout, watchdog)
        except (BadAnswerError, NetworkError):
            return ""
        finally:
            watchdog.cancel()

    # -- the loop's side: the only place that knows which route completions() reads --------------

    def _completions(
        self, session_id: str, loop_id: str, after_sequence: int | None, how: LoopReads
    ) -> Generator[CompletionUpdate, None, None]:
        # One request (the loop's stream, resumed after its last event when it drops), constant
        # work per event: the stream itself says new, outcome and consumed.
        tracker = CompletionTracker(after_sequence)
        path = Calls.loop_events_path(session_id, loop_id)
        position = None if after_sequence is None else str(after_sequence)
        events = self._stream(path, "loop_events", position, self._policy(how.retry, True), how.until, how.on_retry, how.state)
        try:
            for event in events:
                loop_event = LoopEvent.of(event)
                update = None if loop_event is None else tracker.take(loop_event)
                if update is not None:
                    yield update
        except (ProblemError, NetworkError) as error:
            # A retried read gave up at the deadline: the iteration ends, as at the deadline.
            if how.until is not None and self.retry_policy.is_retryable(error):
                return
            raise
        finally:
            events.close()

    def _events(
        self, session_id: str, last_event_id: str, policy: RetryPolicy | None, until: float | None, on_retry: OnRetry | None
    ) -> Generator[JournalRecord, None, None]:
        events = self._stream(Calls.events_path(session_id), "events", last_event_id, policy, until, on_retry)
        try:
            for event in events:
                yield JournalRecord.from_json(parse_json(event.data, "event_not_json", "an event of the session stream"))
        finally:
            events.close()

    def _stream(
        self,
        path: str,
        operation: str,
        last_event_id: str | None,
        policy: RetryPolicy | None,
        until: float | None,
        on_retry: OnRetry | None,
        state: StreamState | None = None,
    ) -> Generator[ServerSentEvent, None, None]:
        """The server-sent events at ``path`` after ``last_event_id`` (none: where the route
        starts), reconnecting after the last event id when the stream ends or fails."""
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
                    with self._http.stream("GET", self._url(path), headers=headers, timeout=timeout) as response:
                        if not response.is_success:
                            raise self._problem(response, self._error_text(response))
                        if state is not None:
                            state.answered()
                        decoder = SseDecoder(self.max_event_bytes)
                        for text in response.iter_text():
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
                policy.sleep(delay)
                continue
            if state is not None:
                state.open = False
            if policy is None and not reopen:
                return

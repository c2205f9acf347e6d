"""What ``Client`` and ``AsyncClient`` share: the calls as request specs, the answers' parsing,
the errors of an answer or of no answer, and the arguments' checks. Only the sending (sync or
async) is theirs."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Generic, Literal, Mapping, Sequence, TypeAlias, TypeVar
from urllib.parse import quote, urlencode

import httpx

from .errors import BadAnswerError, NetworkError, ProblemError
from .models import (
    ClosedSession,
    CompletionDelivery,
    ConsumeResult,
    Consumption,
    JournalPage,
    LifecyclePublication,
    Loop,
    PendingNotification,
    Session,
    SessionCreated,
    SessionToken,
    consume_results,
    pending_list,
)
from .consume_batcher import MAX_CONSUME_BATCH
from .retry import RetryNotice, RetryPolicy, reason_of
from .sse import DEFAULT_MAX_EVENT_BYTES
from .vocabulary import LoopEngine

T = TypeVar("T")

OnRetry: TypeAlias = Callable[[RetryNotice], None]
"""Called once per failed attempt that will be retried, before the wait."""

Retry: TypeAlias = bool | RetryPolicy | None
"""A call's ``retry``: ``True`` or ``False``, a policy (retry, with it), or ``None`` (the call's default)."""

DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024
"""Default ``max_answer_bytes``: 64 MiB. The largest legitimate answer is a journal page of 1000
records, each a body of at most 16 KiB and its envelope: about 17 MiB. The TypeScript client's
``DEFAULT_MAX_ANSWER_BYTES`` is the same."""

# A stream bounded by a deadline (the sync client's; the async one is cancelled at it) is reopened
# (resuming) once a read could run past the deadline by more than a twentieth of the stream's read
# timeout (at least a second), so that a wait ends close to its timeout without reconnecting at
# every keep-alive.
STREAM_SLACK = 1.0
STREAM_SLACK_SHARE = 0.05


@dataclass(frozen=True)
class Call(Generic[T]):
    """One call of the API: what to send, whether to retry it by default, how to read its answer."""

    operation: str
    method: Literal["GET", "POST"]
    path: str
    parse: Callable[[Any], T]
    body: bytes | None = None
    # Reads fail fast; deliveries and the other idempotent writes retry.
    retry_by_default: bool = False


def _segment(value: str) -> str:
    return quote(value, safe="")


def _json_body(body: Mapping[str, Any]) -> bytes:
    # Serialized once: every attempt of a retried call sends the identical bytes.
    return json.dumps(dict(body), separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _loop_path(session_id: str, loop_id: str) -> str:
    return f"/v1/sessions/{_segment(session_id)}/loops/{_segment(loop_id)}"


def _health(_body: Any) -> bool:
    return True


class Calls:
    """Every call of spec section 15 as a :class:`Call`."""

    @staticmethod
    def create_session(session_id: str | None) -> Call[SessionCreated]:
        body = {} if session_id is None else {"session_id": session_id}
        return Call("create_session", "POST", "/v1/sessions", SessionCreated.from_json, _json_body(body))

    @staticmethod
    def get_session(session_id: str) -> Call[Session]:
        return Call("get_session", "GET", f"/v1/sessions/{_segment(session_id)}", Session.from_json)

    @staticmethod
    def rotate_session_token(session_id: str) -> Call[SessionToken]:
        # Not retried by default: an answer lost on the way would leave a token nobody has.
        path = f"/v1/sessions/{_segment(session_id)}/token"
        return Call("rotate_session_token", "POST", path, SessionToken.from_json, b"{}")

    @staticmethod
    def close_session(session_id: str) -> Call[ClosedSession]:
        # Idempotent: every close answers the same closed_at, so it retries like the other writes.
        path = f"/v1/sessions/{_segment(session_id)}/close"
        return Call("close_session", "POST", path, ClosedSession.from_json, b"{}", True)

    @staticmethod
    def open_loop(session_id: str, engine: LoopEngine, loop_id: str | None) -> Call[Loop]:
        body: dict[str, str] = {"engine": engine} if loop_id is None else {"engine": engine, "loop_id": loop_id}
        return Call("open_loop", "POST", f"/v1/sessions/{_segment(session_id)}/loops", Loop.from_json, _json_body(body))

    @staticmethod
    def get_loop(session_id: str, loop_id: str) -> Call[Loop]:
        return Call("get_loop", "GET", _loop_path(session_id, loop_id), Loop.from_json)

    @staticmethod
    def stop_loop(session_id: str, loop_id: str) -> Call[Loop]:
        return Call("stop_loop", "POST", f"{_loop_path(session_id, loop_id)}/stop", Loop.from_json, b"{}", True)

    @staticmethod
    def deliver_completion(notification: Mapping[str, Any]) -> Call[CompletionDelivery]:
        path = f"/v1/sessions/{_segment(str(notification['session_id']))}/process-completions"
        return Call("deliver_completion", "POST", path, CompletionDelivery.from_json, _json_body(notification), True)

    @staticmethod
    def publish_lifecycle(record: Mapping[str, Any]) -> Call[LifecyclePublication]:
        path = f"/v1/sessions/{_segment(str(record['session_id']))}/process-lifecycle"
        return Call("publish_lifecycle", "POST", path, LifecyclePublication.from_json, _json_body(record), True)

    @staticmethod
    def pending_notifications(session_id: str, loop_id: str) -> Call[list[PendingNotification]]:
        path = f"{_loop_path(session_id, loop_id)}/process-notifications"
        return Call("pending_notifications", "GET", path, pending_list)

    @staticmethod
    def consume(session_id: str, loop_id: str, command_id: str) -> Call[Consumption]:
        path = f"{_loop_path(session_id, loop_id)}/process-notifications/{_segment(command_id)}/consume"
        return Call("consume", "POST", path, Consumption.from_json, b"{}", True)

    @staticmethod
    def consume_many(session_id: str, loop_id: str, command_ids: Sequence[str]) -> Call[list[ConsumeResult]]:
        if isinstance(command_ids, str):
            raise TypeError("consume_many takes a sequence of command ids, not one string")
        if not 1 <= len(command_ids) <= MAX_CONSUME_BATCH:
            raise ValueError(f"consume_many takes 1 to {MAX_CONSUME_BATCH} command ids, got {len(command_ids)}")
        path = f"{_loop_path(session_id, loop_id)}/process-notifications/consume"
        body = _json_body({"command_ids": list(command_ids)})
        return Call("consume_many", "POST", path, consume_results, body, True)

    @staticmethod
    def journal(session_id: str, after: int, limit: int) -> Call[JournalPage]:
        query = urlencode({"after": after, "limit": limit})
        return Call("journal", "GET", f"/v1/sessions/{_segment(session_id)}/journal?{query}", JournalPage.from_json)

    @staticmethod
    def health() -> Call[bool]:
        return Call("health", "GET", "/healthz", _health)

    @staticmethod
    def events_path(session_id: str) -> str:
        return f"/v1/sessions/{_segment(session_id)}/events"

    @staticmethod
    def loop_events_path(session_id: str, loop_id: str) -> str:
        return f"{_loop_path(session_id, loop_id)}/events"


class BaseClient:
    """The settings both clients keep, and what they do alike around a request."""

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
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retry_policy = retry or RetryPolicy()
        self.request_timeout = request_timeout
        self.on_retry = on_retry
        self.max_answer_bytes = max_answer_bytes
        self.max_event_bytes = max_event_bytes

    def _url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def _headers(self, accept: str, body: bytes | None = None, last_event_id: str | None = None) -> dict[str, str]:
        headers = {"Accept": accept}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if body is not None:
            headers["Content-Type"] = "application/json"
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return headers

    def _policy(self, retry: Retry, default: bool) -> RetryPolicy | None:
        """The policy a call retries with, or ``None`` when it makes one attempt."""
        if isinstance(retry, RetryPolicy):
            return retry
        return self.retry_policy if (default if retry is None else retry) else None

    def _limits(self) -> dict[str, int]:
        """The bounds of what it reads, as keyword arguments of another client (``with_token``)."""
        return {"max_answer_bytes": self.max_answer_bytes, "max_event_bytes": self.max_event_bytes}

    def _declared_too_large(self, response: httpx.Response) -> None:
        """Fails an answer whose ``Content-Length`` says it is past ``max_answer_bytes``, unread."""
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_answer_bytes:
            raise BadAnswerError.answer_too_large(str(response.url), self.max_answer_bytes)

    def _took_chunk(self, response: httpx.Response, size: int, until: float) -> None:
        """After a chunk of the body: fails the answer once past ``max_answer_bytes`` (``size``,
        all read so far) or past its time (``until``, on the clock of :func:`attempt_clock`)."""
        if size > self.max_answer_bytes:
            raise BadAnswerError.answer_too_large(str(response.url), self.max_answer_bytes)
        if attempt_clock() >= until:
            raise self._late()

    def _late(self) -> NetworkError:
        return NetworkError(f"no whole answer from {self.base_url} in time")

    def _network_error(self, error: Exception) -> NetworkError:
        if isinstance(error, httpx.TimeoutException):
            return NetworkError(f"no answer from {self.base_url} in time ({type(error).__name__})")
        return NetworkError(f"cannot reach {self.base_url} ({type(error).__name__}: {error})")

    def _problem(self, response: httpx.Response, text: str) -> ProblemError:
        retry_after = self.retry_policy.parse_retry_after(response.headers.get("retry-after"))
        return ProblemError.from_response(response.status_code, text, retry_after)

    def _notify(
        self,
        policy: RetryPolicy,
        operation: str,
        attempt: int,
        error: ProblemError | NetworkError,
        delay: float,
        on_retry: OnRetry | None,
    ) -> None:
        at = datetime.fromtimestamp(policy.now() + delay, tz=timezone.utc)
        notice = RetryNotice(operation, attempt, error, reason_of(error), delay, at)
        if self.on_retry is not None:
            self.on_retry(notice)
        if on_retry is not None:
            on_retry(notice)


def attempt_clock() -> float:
    # The clock of one attempt's bound: monotonic, not the policy's (a test's policy may fake it).
    return time.monotonic()


# Transport failures that mean "no answer" (a body cut short included).
TRANSPORT_ERRORS = (httpx.TransportError, httpx.DecodingError)


@dataclass
class StreamState:
    """What a stream's latest connection got, kept for ``wait_for_completion``: at its timeout,
    "the server did not answer" (no stream open; ``failure`` says why) is another answer than "no
    notification came"."""

    open: bool = False
    """A stream is open now: the server answered its latest connection with 2xx."""
    opened: bool = False
    """Some connection was ever answered with 2xx."""
    failure: ProblemError | NetworkError | None = None
    """Why the latest connection failed; cleared once one is open again."""
    ended: bool = False
    """The stream ended for good before any deadline: the server ended it and it does not
    reconnect (``retry=False``)."""

    def answered(self) -> None:
        self.open, self.opened, self.failure = True, True, None

    def failed(self, failure: ProblemError | NetworkError) -> None:
        self.open, self.failure = False, failure

    def no_answer(self, base_url: str, waited: str) -> ProblemError | NetworkError | None:
        """What to raise instead of the timeout, when no stream was open at it: the latest
        failure (a :class:`NetworkError` naming the server, said with what was waited for), or
        "no answer" when no connection was ever answered; ``None`` when a stream was open."""
        if self.open:
            return None
        failure = self.failure
        if failure is None and not self.opened:
            failure = NetworkError(f"no answer from {base_url}")
        if isinstance(failure, NetworkError):
            error = NetworkError(f"{failure}: {waited}")
            error.__cause__ = failure
            return error
        return failure


@dataclass(frozen=True)
class LoopReads:
    """How ``completions()`` reads: its retry (retry as deliveries do, unless told otherwise), the
    deadline that ends it (absolute, on the policy's clock), the caller's ``on_retry``, and what
    its stream's connections got (``state``)."""

    retry: bool | RetryPolicy
    until: float | None
    on_retry: OnRetry | None
    state: StreamState = field(default_factory=StreamState)

    @staticmethod
    def of(retry: Retry, until: float | None, on_retry: OnRetry | None, state: StreamState | None = None) -> LoopReads:
        return LoopReads(True if retry is None else retry, until, on_retry, state or StreamState())


def wait_timeout(timeout: float | None, deadline: float | None) -> float | None:
    """The one bound of ``wait_for_completion``: the sooner of ``timeout`` and ``deadline``."""
    for name, value in (("timeout", timeout), ("deadline", deadline)):
        if value is not None and not value >= 0:
            raise ValueError(f"{name} must be a non-negative number of seconds, got {value!r}")
    bounds = [value for value in (timeout, deadline) if value is not None]
    return min(bounds) if bounds else None


def check_after_sequence(after_sequence: int | None) -> None:
    if after_sequence is not None and (
        isinstance(after_sequence, bool) or not isinstance(after_sequence, int) or after_sequence < 0
    ):
        raise ValueError(f"after_sequence must be a non-negative integer, got {after_sequence!r}")


def completion_target(command_id: str | None, process_handle: str | None) -> Callable[[PendingNotification], bool]:
    """What ``wait_for_completion`` waits for: exactly one of the two, else ``ValueError``."""
    if (command_id is None) == (process_handle is None):
        raise ValueError("wait_for_completion takes exactly one of command_id and process_handle")
    if command_id is not None:
        wanted = command_id.lower()
        return lambda notification: notification.command_id == wanted
    return lambda notification: notification.process_handle == process_handle


def target_name(command_id: str | None, process_handle: str | None) -> str:
    return f"command_id {command_id}" if command_id is not None else f"process_handle {process_handle}"

"""The errors of the client: an error answer, no answer at all (or not in time), an answer the
client cannot take, a wait that timed out, and a notification a loop worker handed out and did
not consume."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from .vocabulary import ProblemDisposition, StopCause

if TYPE_CHECKING:
    from .models import PendingNotification

LoopWorkerFailure = Literal["handler_failed", "consume_failed"]
"""What a loop worker reports to its ``on_error``: the handler raised, or the consume after it failed."""


class ProcessNotificationsError(Exception):
    """Base of :class:`ProblemError`, :class:`NetworkError` and :class:`BadAnswerError`."""


class ProblemError(ProcessNotificationsError):
    """An error answer of the API: its RFC 9457 problem document, typed.

    An answer that is not a problem document (a proxy's HTML page, say) gets the code
    ``http_<status>``. Each attribute is ``None`` when the document does not carry it.
    """

    status: int
    """The HTTP status."""
    code: str
    """The stable problem code (spec section 8), e.g. ``delivery_stopped``."""
    detail: str
    """The human-readable explanation the server gave."""
    field: str | None
    """The failing field of an ``invalid_field`` answer."""
    cause: StopCause | None
    """Why delivery stopped (``delivery_stopped`` only): ``loop_stopped``, ``inbox_full``, ``misrouted``."""
    sequence: int | None
    """Sequence of the original record (``idempotency_collision``)."""
    disposition: ProblemDisposition | None
    """``stopped`` or ``collision`` where the contract names a disposition."""
    retry_after: float | None
    """How long the server asked to wait (its ``Retry-After``), in seconds."""
    problem: dict[str, Any]
    """The whole problem document."""

    def __init__(self, problem: dict[str, Any], retry_after: float | None = None) -> None:
        self.problem = problem
        self.status = int(problem["status"])
        self.code = str(problem["code"])
        self.detail = str(problem["detail"])
        self.field = _optional_str(problem.get("field"))
        # As the server answers it: a cause or disposition a later server adds is passed on too.
        self.cause = cast("StopCause | None", _optional_str(problem.get("cause")))
        sequence = problem.get("sequence")
        self.sequence = sequence if isinstance(sequence, int) and not isinstance(sequence, bool) else None
        self.disposition = cast("ProblemDisposition | None", _optional_str(problem.get("disposition")))
        self.retry_after = retry_after
        super().__init__(f"{self.status} {self.code}: {self.detail}")

    @classmethod
    def from_response(cls, status: int, body_text: str, retry_after: float | None = None) -> ProblemError:
        """Builds the error from a response's status and body text, whatever the body is."""
        try:
            body: object = json.loads(body_text)
        except ValueError:
            body = None
        if (
            isinstance(body, dict)
            and isinstance(body.get("status"), int)
            and isinstance(body.get("code"), str)
            and isinstance(body.get("detail"), str)
        ):
            return cls(body, retry_after)
        detail = body_text.strip()[:200] or f"HTTP {status}"
        return cls(
            {"type": "about:blank", "title": f"HTTP {status}", "status": status, "detail": detail, "code": f"http_{status}"},
            retry_after,
        )


class NetworkError(ProcessNotificationsError):
    """No answer from the server: the connection failed or was cut, or the whole answer did not
    come within the request's timeout.

    Always retryable; the request may or may not have reached the server.
    """


BadAnswerCode = Literal["answer_too_large", "event_too_large", "answer_not_json", "event_not_json"]
"""What can be wrong with an answer the client got (issue 45). The TypeScript client's
``BAD_ANSWER_CODES`` are the same (``test/package/python-client-bad-answers.int-spec.ts``)."""
BAD_ANSWER_CODES: tuple[BadAnswerCode, ...] = get_args(BadAnswerCode)


class BadAnswerError(ProcessNotificationsError):
    """The server answered, but not with what the client can take: an answer past
    ``max_answer_bytes``, an event of a stream past ``max_event_bytes``, or a success answer or an
    event that is not JSON.

    Never retried: the request reached the server (a write may have been applied), and the same
    server would answer the same again. The client stopped reading at the bound, so a hostile or
    broken server cannot exhaust its memory.
    """

    code: BadAnswerCode
    """The stable code of what was wrong: one of :data:`BAD_ANSWER_CODES`."""

    def __init__(self, code: BadAnswerCode, message: str) -> None:
        super().__init__(message)
        self.code = code

    @classmethod
    def answer_too_large(cls, url: str, max_bytes: int) -> BadAnswerError:
        """An answer past ``max_bytes``."""
        return cls("answer_too_large", f"the answer of {url} is larger than {max_bytes} bytes (max_answer_bytes)")

    @classmethod
    def event_too_large(cls, max_bytes: int) -> BadAnswerError:
        """An event (or one line) of a stream past ``max_bytes``."""
        return cls("event_too_large", f"an event of the stream is larger than {max_bytes} bytes (max_event_bytes)")


def parse_json(text: str, code: BadAnswerCode, what: str) -> Any:
    """``text`` as JSON, or a :class:`BadAnswerError` with ``code`` saying ``what`` was not JSON."""
    try:
        return json.loads(text)
    except ValueError as error:
        raise BadAnswerError(code, f"{what} is not JSON: {text[:80]}") from error


class CompletionTimeoutError(TimeoutError):
    """``wait_for_completion()`` gave up: no notification came within ``timeout`` seconds."""

    timeout: float

    def __init__(self, message: str, timeout: float) -> None:
        super().__init__(message)
        self.timeout = timeout


class LoopWorkerError(ProcessNotificationsError):
    """A notification a loop worker (:class:`~process_notifications.LoopWorker`,
    :class:`~process_notifications.AsyncLoopWorker`) handed out and did not consume: its handler
    raised (``code`` ``handler_failed``), or its handler returned and the consume failed
    (``consume_failed``; it may have committed all the same). Either way the notification may
    still be pending: the next run of a worker on the loop is given it again. ``__cause__`` is
    what was raised."""

    code: LoopWorkerFailure
    """Stable: which step failed."""
    notification: PendingNotification
    """The notification the step was for."""

    def __init__(self, code: LoopWorkerFailure, notification: PendingNotification, cause: BaseException) -> None:
        what = "the handler raised" if code == "handler_failed" else "the consume failed"
        super().__init__(f"{what} for notification {notification.command_id}: {cause!r}")
        self.code = code
        self.notification = notification
        self.__cause__ = cause


def _optional_str(value: object) -> str | None:
    return value if isinstance(value, str) else None

"""The errors of the client: an error answer, no answer at all, a wait that timed out, and a
notification a loop worker handed out and did not consume."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .models import PendingNotification

LoopWorkerFailure = Literal["handler_failed", "consume_failed"]
"""What a loop worker reports to its ``on_error``: the handler raised, or the consume after it failed."""


class ProcessNotificationsError(Exception):
    """Base of :class:`ProblemError` and :class:`NetworkError`."""


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
    cause: str | None
    """Why delivery stopped (``delivery_stopped`` only): ``loop_stopped``, ``inbox_full``, ``misrouted``."""
    sequence: int | None
    """Sequence of the original record (``idempotency_collision``)."""
    disposition: str | None
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
        self.cause = _optional_str(problem.get("cause"))
        sequence = problem.get("sequence")
        self.sequence = sequence if isinstance(sequence, int) and not isinstance(sequence, bool) else None
        self.disposition = _optional_str(problem.get("disposition"))
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
    """No answer from the server: the connection failed or was cut, or the request timed out.

    Always retryable; the request may or may not have reached the server.
    """


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

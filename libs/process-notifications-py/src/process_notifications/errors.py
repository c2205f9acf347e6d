"""The errors of the client: an error answer, no answer at all, and a wait that timed out."""

from __future__ import annotations

import json
from typing import Any


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


def _optional_str(value: object) -> str | None:
    return value if isinstance(value, str) else None

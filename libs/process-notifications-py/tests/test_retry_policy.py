"""The retry policy on its own: which answers are retried, backoff with full jitter, Retry-After."""

from __future__ import annotations

from email.utils import format_datetime
from datetime import datetime, timezone

import pytest

from process_notifications import NetworkError, ProblemError, RetryPolicy


def problem(status: int, code: str, cause: str | None = None, retry_after: float | None = None) -> ProblemError:
    document = {"type": "about:blank", "title": code, "status": status, "detail": code, "code": code}
    if cause:
        document["cause"] = cause
    return ProblemError(document, retry_after)


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        (NetworkError("cannot reach"), True),
        (problem(503, "delivery_stopped", "inbox_full"), True),
        (problem(503, "delivery_stopped", "misrouted"), True),
        (problem(503, "delivery_stopped", "loop_stopped"), False),
        (problem(503, "journal_unavailable"), True),
        (problem(503, "owner_unavailable"), True),
        (problem(429, "stream_limit_reached"), True),
        (problem(500, "internal_error"), True),
        (problem(502, "http_502"), True),
        (problem(400, "invalid_field"), False),
        (problem(401, "unauthorized"), False),
        (problem(404, "loop_not_found"), False),
        (problem(409, "unsupported_engine"), False),
        (problem(422, "idempotency_collision"), False),
        (ValueError("not ours"), False),
    ],
)
def test_retries_what_the_contract_says(error: Exception, retried: bool) -> None:
    assert RetryPolicy().is_retryable(error) is retried


def test_max_attempts_counts_the_first() -> None:
    policy = RetryPolicy(max_attempts=3)
    assert [policy.should_retry(NetworkError("x"), attempt) for attempt in (1, 2, 3)] == [True, True, False]


def test_capped_exponential_backoff_with_full_jitter() -> None:
    top = RetryPolicy(base_delay=0.25, max_delay=2.0, random=lambda: 0.999999)
    assert [round(top.delay(attempt), 3) for attempt in range(1, 7)] == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    assert RetryPolicy(random=lambda: 0.0).delay(5) == 0.0
    assert RetryPolicy(base_delay=1.0, random=lambda: 0.5).delay(3) == 2.0


def test_never_sooner_than_retry_after() -> None:
    policy = RetryPolicy(base_delay=0.25, max_delay=1.0, random=lambda: 0.5)
    assert policy.delay(1, problem(503, "delivery_stopped", "inbox_full", retry_after=7.0)) == 7.0
    assert policy.delay(1, problem(503, "journal_unavailable", retry_after=0.0)) == 0.125


def test_reads_retry_after_as_seconds_or_an_http_date() -> None:
    policy = RetryPolicy(now=lambda: 1_700_000_000.0)
    at = format_datetime(datetime.fromtimestamp(1_700_000_030, tz=timezone.utc), usegmt=True)
    assert [policy.parse_retry_after(value) for value in ("5", " 12 ", at, "", None, "soon", "-1")] == [
        5.0,
        12.0,
        30.0,
        None,
        None,
        None,
        None,
    ]


def test_a_problem_document_and_an_answer_that_is_not_one() -> None:
    document = '{"type":"t","title":"x","status":422,"detail":"d","code":"idempotency_collision","sequence":4,"disposition":"collision"}'
    error = ProblemError.from_response(422, document, 1.5)
    assert (error.code, error.sequence, error.disposition, error.field, error.cause, error.retry_after) == (
        "idempotency_collision",
        4,
        "collision",
        None,
        None,
        1.5,
    )
    html = ProblemError.from_response(502, "<html>Bad gateway</html>")
    assert (html.status, html.code, html.detail) == (502, "http_502", "<html>Bad gateway</html>")

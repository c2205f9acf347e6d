"""The closed sets of the process notifications API (v1), for Python, spelled out once, here.

Each is a ``Literal`` type and the tuple of its members. Their one definition is the contract
package of the repository (``libs/process-notifications-contract``, which the server and the
TypeScript client import); Python cannot import it, so a test of the repository
(``test/package/python-client-vocabulary.int-spec.ts``) compares every tuple with it and fails on
any drift, and a member the server answers with is added here, in this one file.
"""

from __future__ import annotations

from typing import Literal, get_args

ProcessState = Literal[
    "starting",
    "running",
    "exited",
    "failed",
    "timed_out",
    "interrupted",
    "terminated",
    "killed",
    "lost_on_restore",
]
"""Every process state; ``starting`` and ``running`` are never terminal."""
PROCESS_STATES: tuple[ProcessState, ...] = get_args(ProcessState)

TerminalReason = Literal[
    "exited",
    "timed_out",
    "interrupted",
    "terminated",
    "killed",
    "runner_shutdown",
    "failed",
    "output_limit",
    "lost_on_restore",
]
"""Every terminal reason."""
TERMINAL_REASONS: tuple[TerminalReason, ...] = get_args(TerminalReason)

TERMINAL_PAIRS: dict[str, tuple[TerminalReason, ...]] = {
    "exited": ("exited",),
    "failed": ("failed",),
    "timed_out": ("timed_out",),
    "interrupted": ("interrupted",),
    "terminated": ("terminated", "runner_shutdown", "output_limit"),
    "killed": ("killed", "runner_shutdown", "output_limit"),
    "lost_on_restore": ("lost_on_restore",),
}
"""The terminal state/reason pairs a completion notification may carry: each state with its reasons."""

LifecycleKind = Literal["started", "backgrounded", "completed", "stop_requested", "lost"]
"""Kinds of lifecycle record."""
LIFECYCLE_KINDS: tuple[LifecycleKind, ...] = get_args(LifecycleKind)

OutcomeKind = Literal["completed", "lost"]
"""The lifecycle kinds that end a run, and may name their notification's ``command_id``."""
OUTCOME_KINDS: tuple[OutcomeKind, ...] = get_args(OutcomeKind)

JournalKind = Literal[
    "process_notification",
    "process_notification_consumed",
    "loop_stopped",
    "started",
    "backgrounded",
    "completed",
    "stop_requested",
    "lost",
]
"""Kinds of journal record."""
JOURNAL_KINDS: tuple[JournalKind, ...] = get_args(JournalKind)

StopCause = Literal["loop_stopped", "inbox_full", "misrouted"]
"""Why a delivery answered ``stopped`` (the ``cause`` of ``delivery_stopped``)."""
STOP_CAUSES: tuple[StopCause, ...] = get_args(StopCause)

LoopEngine = Literal["native", "foreign"]
LOOP_ENGINES: tuple[LoopEngine, ...] = get_args(LoopEngine)

LoopState = Literal["running", "stopped"]
LOOP_STATES: tuple[LoopState, ...] = get_args(LoopState)

SessionState = Literal["open", "closed"]
"""A session is ``closed`` once closed: readable with the admin token, no more writes."""
SESSION_STATES: tuple[SessionState, ...] = get_args(SessionState)

LoopEventType = Literal["notification", "outcome", "consumed"]
"""The event names of a loop's stream (``GET /v1/sessions/:sid/loops/:lid/events``)."""
LOOP_EVENT_TYPES: tuple[LoopEventType, ...] = get_args(LoopEventType)

SuccessDisposition = Literal["accepted", "duplicate"]
"""The answers of a delivery that succeeded."""
SUCCESS_DISPOSITIONS: tuple[SuccessDisposition, ...] = get_args(SuccessDisposition)

ProblemDisposition = Literal["stopped", "collision"]
"""The dispositions a problem document may carry."""
PROBLEM_DISPOSITIONS: tuple[ProblemDisposition, ...] = get_args(ProblemDisposition)

ProblemCode = Literal[
    "invalid_json",
    "invalid_field",
    "invalid_request_target",
    "unauthorized",
    "forbidden",
    "owner_mismatch",
    "session_not_found",
    "loop_not_found",
    "not_found",
    "method_not_allowed",
    "unsupported_engine",
    "already_exists",
    "loop_limit_reached",
    "session_closed",
    "payload_too_large",
    "unsupported_media_type",
    "idempotency_collision",
    "stream_limit_reached",
    "internal_error",
    "delivery_stopped",
    "journal_unavailable",
    "owner_unavailable",
]
"""Every problem ``code`` the API answers with (spec section 8)."""
PROBLEM_CODES: tuple[ProblemCode, ...] = get_args(ProblemCode)

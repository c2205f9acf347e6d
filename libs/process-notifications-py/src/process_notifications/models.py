"""The answers of the API as frozen dataclasses whose attribute names are the wire's field names,
and the request bodies as typed mappings of the wire's snake_case fields."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, Mapping, TypedDict

from .vocabulary import (
    JournalKind,
    LifecycleKind,
    LoopEngine,
    LoopState,
    OutcomeKind,
    ProcessState,
    SessionState,
    SuccessDisposition,
    TerminalReason,
)

Json = Mapping[str, Any]


class CompletionNotificationBody(TypedDict):
    """The process completion notification (spec section 2): these six fields, nothing else."""

    command_id: str
    session_id: str
    loop_id: str
    process_handle: str
    state: ProcessState
    reason: TerminalReason


class _LifecycleRecordRequired(TypedDict):
    event_id: str
    kind: LifecycleKind
    session_id: str
    loop_id: str
    process_handle: str
    origin_execution_id: str
    state: ProcessState
    process_created_at: str


class LifecycleRecordBody(_LifecycleRecordRequired, total=False):
    """A process lifecycle record (spec sections 6 and 14); timestamps are RFC 3339."""

    process_started_at: str
    process_finished_at: str
    diagnostic: str
    has_exit_code: bool
    exit_code: int
    reason: TerminalReason
    command_id: str


@dataclass(frozen=True)
class SessionCreated:
    """Answer of ``create_session``; the token is shown only once."""

    session_id: str
    token: str

    @classmethod
    def from_json(cls, body: Json) -> SessionCreated:
        return cls(session_id=body["session_id"], token=body["token"])


@dataclass(frozen=True)
class Loop:
    """A loop as the API shows it: ``state`` is ``running`` or ``stopped``."""

    loop_id: str
    engine: LoopEngine
    state: LoopState
    capacity: int
    pending: int

    @classmethod
    def from_json(cls, body: Json) -> Loop:
        return cls(
            loop_id=body["loop_id"],
            engine=body["engine"],
            state=body["state"],
            capacity=body["capacity"],
            pending=body["pending"],
        )


@dataclass(frozen=True)
class Session:
    """Answer of ``get_session``: ``state`` is ``closed`` once closed (``closed_at`` says when;
    ``None`` while open)."""

    session_id: str
    loops: list[Loop]
    state: SessionState = "open"
    closed_at: str | None = None

    @classmethod
    def from_json(cls, body: Json) -> Session:
        return cls(
            session_id=body["session_id"],
            loops=[Loop.from_json(loop) for loop in body["loops"]],
            state=body.get("state", "open"),
            closed_at=body.get("closed_at"),
        )


@dataclass(frozen=True)
class SessionToken:
    """Answer of ``rotate_session_token``: the session's new token, shown once."""

    session_id: str
    token: str

    @classmethod
    def from_json(cls, body: Json) -> SessionToken:
        return cls(session_id=body["session_id"], token=body["token"])


@dataclass(frozen=True)
class ClosedSession:
    """Answer of ``close_session``: the same ``closed_at`` on every close."""

    session_id: str
    state: Literal["closed"]
    closed_at: str

    @classmethod
    def from_json(cls, body: Json) -> ClosedSession:
        return cls(session_id=body["session_id"], state=body["state"], closed_at=body["closed_at"])


@dataclass(frozen=True)
class CompletionDelivery:
    """Answer of ``deliver_completion``: ``accepted`` or ``duplicate``."""

    disposition: SuccessDisposition
    command_id: str
    sequence: int
    appended: bool
    """False when an identical earlier call already journaled it."""

    @classmethod
    def from_json(cls, body: Json) -> CompletionDelivery:
        return cls(
            disposition=body["disposition"],
            command_id=body["command_id"],
            sequence=body["sequence"],
            appended=body["appended"],
        )


@dataclass(frozen=True)
class LifecyclePublication:
    """Answer of ``publish_lifecycle``."""

    event_id: str
    sequence: int
    appended: bool

    @classmethod
    def from_json(cls, body: Json) -> LifecyclePublication:
        return cls(event_id=body["event_id"], sequence=body["sequence"], appended=body["appended"])


@dataclass(frozen=True)
class ProcessOutcome:
    """How a notification's process ended (spec section 14), from the first ``completed`` or
    ``lost`` lifecycle record of the session that names its ``command_id``."""

    event_id: str
    kind: OutcomeKind
    has_exit_code: bool
    exit_code: int | None
    diagnostic: str | None
    process_started_at: str | None
    process_finished_at: str | None
    #: The POSIX signal that ended the command (``"SIGSEGV"``); ``None`` when the record named
    #: none (the command exited by itself, or a server older than the field). Last, with a
    #: default, so code that builds an outcome by position keeps working.
    signal: str | None = None

    @classmethod
    def from_json(cls, body: Json) -> ProcessOutcome:
        return cls(
            event_id=body["event_id"],
            kind=body["kind"],
            has_exit_code=bool(body.get("has_exit_code", False)),
            exit_code=body.get("exit_code"),
            diagnostic=body.get("diagnostic"),
            process_started_at=body.get("process_started_at"),
            process_finished_at=body.get("process_finished_at"),
            signal=body.get("signal"),
        )


@dataclass(frozen=True)
class PendingNotification:
    """A notification in a loop's pending set: the six notification fields, its journal
    ``sequence``, and its ``outcome`` (``None`` until a record names its ``command_id``)."""

    command_id: str
    session_id: str
    loop_id: str
    process_handle: str
    state: ProcessState
    reason: TerminalReason
    sequence: int
    outcome: ProcessOutcome | None

    @classmethod
    def from_json(cls, body: Json) -> PendingNotification:
        outcome = body.get("outcome")
        return cls(
            command_id=body["command_id"],
            session_id=body["session_id"],
            loop_id=body["loop_id"],
            process_handle=body["process_handle"],
            state=body["state"],
            reason=body["reason"],
            sequence=body["sequence"],
            outcome=None if outcome is None else ProcessOutcome.from_json(outcome),
        )

    def with_outcome(self, outcome: ProcessOutcome | None) -> PendingNotification:
        """The same notification with another outcome."""
        return replace(self, outcome=outcome)


@dataclass(frozen=True)
class Consumption:
    """Answer of ``consume``: ``consumed`` is False when it had already been consumed."""

    consumed: bool
    sequence: int

    @classmethod
    def from_json(cls, body: Json) -> Consumption:
        return cls(consumed=body["consumed"], sequence=body["sequence"])


@dataclass(frozen=True)
class ConsumeResult:
    """One command id's answer of ``consume_many``: ``consumed`` and ``sequence`` as ``consume``
    answers them, or ``code`` ``not_found`` (then both are ``None``) for an id never journaled
    for the loop."""

    command_id: str
    consumed: bool | None = None
    sequence: int | None = None
    code: Literal["not_found"] | None = None

    @classmethod
    def from_json(cls, body: Json) -> ConsumeResult:
        return cls(
            command_id=body["command_id"],
            consumed=body.get("consumed"),
            sequence=body.get("sequence"),
            code=body.get("code"),
        )


def consume_results(body: Json) -> list[ConsumeResult]:
    """The results of a batch consume, one per command id in the order sent."""
    return [ConsumeResult.from_json(result) for result in body["results"]]


@dataclass(frozen=True)
class JournalRecord:
    """One journal record. ``payload`` is the canonical payload as a ``dict`` (its shape
    depends on ``kind``), or ``None`` once retention dropped it."""

    sequence: int
    kind: JournalKind
    loop_id: str | None
    idempotency_id: str
    cause_command_id: str | None
    created_at: str
    payload: dict[str, Any] | None

    @classmethod
    def from_json(cls, body: Json) -> JournalRecord:
        payload = body.get("payload")
        return cls(
            sequence=body["sequence"],
            kind=body["kind"],
            loop_id=body.get("loop_id"),
            idempotency_id=body["idempotency_id"],
            cause_command_id=body.get("cause_command_id"),
            created_at=body["created_at"],
            payload=dict(payload) if isinstance(payload, Mapping) else None,
        )


@dataclass(frozen=True)
class JournalPage:
    """Answer of ``journal``: pass ``next_after`` as ``after`` to read the next page."""

    records: list[JournalRecord]
    next_after: int

    @classmethod
    def from_json(cls, body: Json) -> JournalPage:
        return cls(records=[JournalRecord.from_json(record) for record in body["records"]], next_after=body["next_after"])


@dataclass(frozen=True)
class CompletionUpdate:
    """One item of ``completions()``: ``new`` the first time a command id is yielded,
    ``outcome`` once more when its outcome record was journaled after the notification."""

    notification: PendingNotification
    update: Literal["new", "outcome"]


def pending_list(body: Json) -> list[PendingNotification]:
    """The notifications of ``GET .../process-notifications``, in acceptance order."""
    return [PendingNotification.from_json(item) for item in body["notifications"]]

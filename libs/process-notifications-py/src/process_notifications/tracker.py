"""The bookkeeping of one ``completions()`` iteration, apart from its I/O (shared by both clients)."""

from __future__ import annotations

from dataclasses import dataclass

from .models import CompletionUpdate, JournalRecord, PendingNotification, ProcessOutcome


def outcome_from_record(record: JournalRecord) -> tuple[str, ProcessOutcome] | None:
    """The command id a ``completed`` or ``lost`` journal record names, and the outcome it gives it."""
    if record.kind not in ("completed", "lost") or record.payload is None:
        return None
    payload = record.payload
    command_id = payload.get("command_id")
    if not isinstance(command_id, str):
        return None
    return command_id, ProcessOutcome(
        event_id=payload["event_id"],
        kind=record.kind,
        has_exit_code=bool(payload.get("has_exit_code", False)),
        exit_code=payload.get("exit_code"),
        diagnostic=payload.get("diagnostic"),
        process_started_at=payload.get("process_started_at"),
        process_finished_at=payload.get("process_finished_at"),
    )


def notification_from_record(record: JournalRecord, outcome: ProcessOutcome | None) -> PendingNotification:
    """A ``process_notification`` record as the pending view would show it."""
    payload = record.payload or {}
    return PendingNotification(
        command_id=payload["command_id"],
        session_id=payload["session_id"],
        loop_id=payload["loop_id"],
        process_handle=payload["process_handle"],
        state=payload["state"],
        reason=payload["reason"],
        sequence=record.sequence,
        outcome=outcome,
    )


@dataclass
class _Seen:
    notification: PendingNotification
    # The outcome the caller has been given (or, resuming, is known to have been).
    outcome_given: bool
    # Resuming: the event id of the outcome the pending view showed, which a later record must match.
    expected_event_id: str | None = None


class CompletionTracker:
    """Which command ids were yielded and whether with their outcome, and the outcomes met in
    the journal before their notification (the first record naming a command id wins). Feed it
    the pending view, then journal records in sequence order; it says what to yield, each
    command id once as ``new`` and at most once more as ``outcome``."""

    def __init__(self, loop_id: str) -> None:
        self._loop_id = loop_id
        self._seen: dict[str, _Seen] = {}
        # Outcomes of command ids not yielded yet, first record first.
        self._early: dict[str, ProcessOutcome] = {}

    def has(self, command_id: str) -> bool:
        """True once ``command_id`` was yielded (or, resuming, delivered before)."""
        return command_id in self._seen

    def early_outcome(self, command_id: str) -> ProcessOutcome | None:
        """An outcome met in the journal for a command id not yielded yet."""
        return self._early.get(command_id)

    def yield_new(self, notification: PendingNotification) -> CompletionUpdate:
        """Takes a notification the caller gets now as ``new``."""
        self._seen[notification.command_id] = _Seen(notification, outcome_given=notification.outcome is not None)
        return CompletionUpdate(notification=notification, update="new")

    def already_delivered(self, notification: PendingNotification) -> None:
        """Takes a notification the caller already had (at or before the resume position): only
        an outcome journaled after that position is yielded for it, and only the one the view shows."""
        self._seen[notification.command_id] = _Seen(
            notification.with_outcome(None),
            outcome_given=False,
            expected_event_id=notification.outcome.event_id if notification.outcome else None,
        )

    def outcome_update(self, record: JournalRecord) -> CompletionUpdate | None:
        """A journal record, in sequence order: the ``outcome`` update it makes, if any."""
        found = outcome_from_record(record)
        if found is None:
            return None
        command_id, outcome = found
        seen = self._seen.get(command_id)
        if seen is None:
            self._early.setdefault(command_id, outcome)
            return None
        if seen.outcome_given:
            return None
        # Resuming: a record the view does not show as the outcome is a later one; it changes nothing.
        if seen.expected_event_id is not None and seen.expected_event_id != outcome.event_id:
            return None
        seen.outcome_given = True
        seen.notification = seen.notification.with_outcome(outcome)
        return CompletionUpdate(notification=seen.notification, update="outcome")

    def notification_of(self, record: JournalRecord) -> JournalRecord | None:
        """The record itself when it is a notification of this loop not yielded yet; else ``None``."""
        if record.kind != "process_notification" or record.payload is None:
            return None
        payload = record.payload
        if payload.get("loop_id") != self._loop_id or payload.get("command_id") in self._seen:
            return None
        return record

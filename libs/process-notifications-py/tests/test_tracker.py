"""The completion tracker on its own: each command id once as new, at most once more as outcome."""

from __future__ import annotations

from typing import Any

from process_notifications.models import JournalRecord, PendingNotification, ProcessOutcome
from process_notifications.tracker import CompletionTracker

LOOP = "0190a5a8-0000-7000-8000-000000000001"


def pending(command_id: str, sequence: int, outcome: ProcessOutcome | None = None) -> PendingNotification:
    return PendingNotification(command_id, "s", LOOP, "h", "exited", "exited", sequence, outcome)


def outcome_record(sequence: int, command_id: str, event_id: str, exit_code: int = 0) -> JournalRecord:
    payload: dict[str, Any] = {"event_id": event_id, "kind": "completed", "has_exit_code": True, "exit_code": exit_code, "command_id": command_id}
    return JournalRecord(sequence, "completed", LOOP, event_id, None, "t", payload)


def notification_record(sequence: int, command_id: str, loop_id: str = LOOP) -> JournalRecord:
    payload = {"command_id": command_id, "session_id": "s", "loop_id": loop_id, "process_handle": "h", "state": "exited", "reason": "exited"}
    return JournalRecord(sequence, "process_notification", loop_id, command_id, None, "t", payload)


def test_an_outcome_after_its_notification_is_yielded_once() -> None:
    tracker = CompletionTracker(LOOP)
    assert tracker.yield_new(pending("a", 1)).update == "new"
    update = tracker.outcome_update(outcome_record(2, "a", "e1", 3))
    assert update is not None and update.update == "outcome"
    assert update.notification.outcome is not None and update.notification.outcome.exit_code == 3
    assert tracker.outcome_update(outcome_record(3, "a", "e2", 4)) is None


def test_an_outcome_before_its_notification_is_kept_first_record_first() -> None:
    tracker = CompletionTracker(LOOP)
    assert tracker.outcome_update(outcome_record(1, "b", "e1", 1)) is None
    assert tracker.outcome_update(outcome_record(2, "b", "e2", 2)) is None
    early = tracker.early_outcome("b")
    assert early is not None and early.event_id == "e1"


def test_a_notification_of_another_loop_or_one_yielded_is_not_taken() -> None:
    tracker = CompletionTracker(LOOP)
    assert tracker.notification_of(notification_record(1, "c", loop_id="other")) is None
    assert tracker.notification_of(notification_record(2, "c")) is not None
    tracker.yield_new(pending("c", 2))
    assert tracker.notification_of(notification_record(2, "c")) is None


def test_resuming_yields_only_the_outcome_the_view_shows() -> None:
    tracker = CompletionTracker(LOOP)
    view_outcome = ProcessOutcome("e2", "completed", True, 0, None, None, None)
    tracker.already_delivered(pending("d", 1, view_outcome))
    assert tracker.has("d")
    assert tracker.outcome_update(outcome_record(5, "d", "other-event")) is None
    update = tracker.outcome_update(outcome_record(6, "d", "e2"))
    assert update is not None and update.update == "outcome"

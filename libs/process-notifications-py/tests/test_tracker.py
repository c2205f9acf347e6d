"""The completion tracker on its own: each command id once as new, at most once more as outcome."""

from __future__ import annotations

from process_notifications.models import PendingNotification, ProcessOutcome
from process_notifications.sse import ServerSentEvent
from process_notifications.tracker import CompletionTracker, LoopEvent

LOOP = "0190a5a8-0000-7000-8000-000000000001"
OUTCOME = ProcessOutcome("e1", "completed", True, 3, None, None, None)


def pending(command_id: str, sequence: int, outcome: ProcessOutcome | None = None) -> PendingNotification:
    return PendingNotification(command_id, "s", LOOP, "h", "exited", "exited", sequence, outcome)


def new(sequence: int, command_id: str, outcome: ProcessOutcome | None = None) -> LoopEvent:
    return LoopEvent(sequence, "notification", notification=pending(command_id, sequence, outcome))


def outcome(at: int, command_id: str, sequence: int) -> LoopEvent:
    return LoopEvent(at, "outcome", notification=pending(command_id, sequence, OUTCOME))


def consumed(at: int, command_id: str) -> LoopEvent:
    return LoopEvent(at, "consumed", consumed_command_id=command_id)


def test_an_outcome_after_its_notification_is_yielded_once() -> None:
    tracker = CompletionTracker()
    first = tracker.take(new(1, "a"))
    assert first is not None and first.update == "new"
    update = tracker.take(outcome(2, "a", 1))
    assert update is not None and update.update == "outcome"
    assert update.notification.outcome is not None and update.notification.outcome.exit_code == 3
    assert tracker.take(outcome(3, "a", 1)) is None
    assert tracker.take(new(1, "a")) is None


def test_a_notification_that_came_with_its_outcome_gets_no_second_update() -> None:
    tracker = CompletionTracker()
    update = tracker.take(new(1, "b", OUTCOME))
    assert update is not None and update.update == "new" and update.notification.outcome == OUTCOME
    assert tracker.take(outcome(2, "b", 1)) is None


def test_a_consumed_event_lets_go_of_the_command_id() -> None:
    tracker = CompletionTracker()
    tracker.take(new(1, "c"))
    assert len(tracker) == 1
    assert tracker.take(consumed(2, "c")) is None
    assert len(tracker) == 0
    # Consumed before the stream read its outcome: nothing to yield.
    assert tracker.take(outcome(3, "c", 1)) is None


def test_resuming_yields_the_outcome_of_a_notification_had_before() -> None:
    tracker = CompletionTracker(after_sequence=5)
    update = tracker.take(outcome(6, "d", 4))
    assert update is not None and update.update == "outcome"
    assert tracker.take(outcome(7, "d", 4)) is None
    # One after the resume position this iteration never gave was consumed before it was read.
    assert tracker.take(outcome(8, "e", 6)) is None


def test_stream_events_are_read_by_name_and_unknown_names_skipped() -> None:
    data = '{"command_id":"f","session_id":"s","loop_id":"l","process_handle":"h","state":"exited","reason":"exited","sequence":4,"outcome":null}'
    event = LoopEvent.of(ServerSentEvent("4", "notification", data))
    assert event is not None and event.id == 4 and event.notification is not None and event.notification.command_id == "f"
    gone = LoopEvent.of(ServerSentEvent("5", "consumed", '{"command_id":"f","sequence":5}'))
    assert gone is not None and gone.consumed_command_id == "f"
    assert LoopEvent.of(ServerSentEvent("6", "later", "{}")) is None

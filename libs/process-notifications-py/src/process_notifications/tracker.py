"""The bookkeeping of one ``completions()`` iteration over a loop's stream, apart from its I/O
(shared by both clients)."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import parse_json
from .models import CompletionUpdate, PendingNotification
from .sse import ServerSentEvent
from .vocabulary import LOOP_EVENT_TYPES, LoopEventType


@dataclass(frozen=True)
class LoopEvent:
    """One event of a loop's stream (``GET /v1/sessions/:sid/loops/:lid/events``): ``id`` is its
    journal sequence; ``notification`` and ``outcome`` carry the notification as the pending view
    shows it, ``consumed`` the command id consumed."""

    id: int
    type: LoopEventType
    notification: PendingNotification | None = None
    consumed_command_id: str | None = None

    @staticmethod
    def of(event: ServerSentEvent) -> LoopEvent | None:
        """The loop event a server-sent event carries; ``None`` for a name a later version added."""
        sequence = int(event.id) if event.id is not None and event.id.isdigit() else 0
        if event.event not in LOOP_EVENT_TYPES:
            return None
        data = parse_json(event.data, "event_not_json", "an event of the loop stream")
        if event.event == "consumed":
            return LoopEvent(sequence, "consumed", consumed_command_id=str(data["command_id"]))
        if event.event == "notification":
            return LoopEvent(sequence, "notification", notification=PendingNotification.from_json(data))
        return LoopEvent(sequence, "outcome", notification=PendingNotification.from_json(data))


class CompletionTracker:
    """Takes a loop stream's events in order and says what to yield: each command id once as
    ``new`` and at most once more as ``outcome``. Constant work per event; it holds one entry per
    notification given and not consumed yet (a ``consumed`` event lets go of it).

    ``after_sequence``, resuming: the caller already had every notification up to it, so the
    outcome of one of those is yielded although this iteration never gave it."""

    def __init__(self, after_sequence: int | None = None) -> None:
        self._after_sequence = after_sequence
        # Command ids given and not consumed yet: whether their outcome was given too.
        self._given: dict[str, bool] = {}

    def __len__(self) -> int:
        """Notifications given and not known to be consumed: what this iteration holds."""
        return len(self._given)

    def take(self, event: LoopEvent) -> CompletionUpdate | None:
        """The update an event of the stream makes, if any."""
        if event.type == "consumed":
            if event.consumed_command_id is not None:
                self._given.pop(event.consumed_command_id, None)
            return None
        notification = event.notification
        if notification is None:
            return None
        outcome_given = self._given.get(notification.command_id)
        if event.type == "notification":
            if outcome_given is not None:
                return None
            self._given[notification.command_id] = notification.outcome is not None
            return CompletionUpdate(notification=notification, update="new")
        if outcome_given is True:
            return None
        # Not given here: yielded only to a caller that had it before it resumed (else it was
        # consumed before the stream read it).
        if outcome_given is None and not (
            self._after_sequence is not None and notification.sequence <= self._after_sequence
        ):
            return None
        self._given[notification.command_id] = True
        return CompletionUpdate(notification=notification, update="outcome")

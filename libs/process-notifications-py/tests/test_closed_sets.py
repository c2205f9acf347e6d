"""The answers' closed-set fields are the vocabulary's ``Literal`` types (vocabulary.py, compared
with the contract package by test/package/python-client-vocabulary.int-spec.ts), not ``str``."""

from __future__ import annotations

import dataclasses
from typing import Any, get_type_hints

import pytest

from process_notifications import errors, models, vocabulary


@pytest.mark.parametrize(
    ("owner", "field", "closed_set"),
    [
        (models.Loop, "engine", vocabulary.LoopEngine),
        (models.Loop, "state", vocabulary.LoopState),
        (models.Session, "state", vocabulary.SessionState),
        (models.CompletionDelivery, "disposition", vocabulary.SuccessDisposition),
        (models.ProcessOutcome, "kind", vocabulary.OutcomeKind),
        (models.PendingNotification, "state", vocabulary.ProcessState),
        (models.PendingNotification, "reason", vocabulary.TerminalReason),
        (models.JournalRecord, "kind", vocabulary.JournalKind),
        (errors.ProblemError, "cause", vocabulary.StopCause | None),
        (errors.ProblemError, "disposition", vocabulary.ProblemDisposition | None),
    ],
)
def test_a_closed_set_field_is_typed_by_the_vocabulary(owner: type, field: str, closed_set: Any) -> None:
    assert get_type_hints(owner)[field] == closed_set


def test_no_answer_field_is_a_bare_str_but_the_open_ones() -> None:
    # Ids, tokens, timestamps, free text: open sets.
    open_names = {"session_id", "loop_id", "command_id", "process_handle", "token", "event_id", "closed_at", "idempotency_id"}
    open_names |= {"cause_command_id", "created_at", "diagnostic", "process_started_at", "process_finished_at", "signal"}
    for name in dir(models):
        owner = getattr(models, name)
        if not (isinstance(owner, type) and dataclasses.is_dataclass(owner)):
            continue
        for field, hint in get_type_hints(owner).items():
            if hint in (str, str | None):
                assert field in open_names, f"{name}.{field} is a str: is it a closed set of vocabulary.py?"

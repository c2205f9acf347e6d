"""The synchronous client against the real server (spec sections 8, 14 and 15)."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from process_notifications import (
    Client,
    CompletionTimeoutError,
    CompletionUpdate,
    NetworkError,
    PendingNotification,
    ProblemError,
    ProcessNotificationsError,
    RetryNotice,
    RetryPolicy,
)

from conftest import Loop
from support import ADMIN_TOKEN, ServerProcess, completed_record, free_port, notification, signalled_record


def updates_of(items: list[CompletionUpdate]) -> list[tuple[str, str, int | None]]:
    """Each update as (command id, kind of update, exit code or None)."""
    return [
        (item.notification.command_id, item.update, None if item.notification.outcome is None else item.notification.outcome.exit_code)
        for item in items
    ]


class TestDelivering:
    def test_opens_a_session_and_a_loop_and_delivers(self, server: ServerProcess) -> None:
        with Client(server.url, ADMIN_TOKEN) as admin:
            session = admin.create_session()
            with admin.with_token(session.token) as client:
                loop = client.open_loop(session.session_id)
                assert (loop.engine, loop.state, loop.pending) == ("native", "running", 0)
                sent = notification(session.session_id, loop.loop_id)
                delivery = client.deliver_completion(sent)
                assert (delivery.disposition, delivery.command_id, delivery.appended) == ("accepted", sent["command_id"], True)
                assert client.get_loop(session.session_id, loop.loop_id).pending == 1
                got = client.get_session(session.session_id)
                assert got.session_id == session.session_id
                assert [each.loop_id for each in got.loops] == [loop.loop_id]

    def test_an_identical_retry_is_a_duplicate_also_with_upper_case_ids(self, client: Client, loop: Loop) -> None:
        sent = notification(loop.session_id, loop.loop_id)
        first = client.deliver_completion(sent)
        again = client.deliver_completion(sent)
        upper = {**sent, **{key: sent[key].upper() for key in ("command_id", "session_id", "loop_id")}}
        shouted = client.deliver_completion(upper)
        assert [(d.disposition, d.sequence, d.appended) for d in (again, shouted)] == [
            ("duplicate", first.sequence, False),
            ("duplicate", first.sequence, False),
        ]
        assert [n.command_id for n in client.pending_notifications(loop.session_id, loop.loop_id)] == [sent["command_id"]]

    def test_a_collision_carries_the_originals_sequence(self, client: Client, loop: Loop) -> None:
        sent = notification(loop.session_id, loop.loop_id)
        original = client.deliver_completion(sent)
        with pytest.raises(ProblemError) as raised:
            client.deliver_completion({**sent, "process_handle": "another-handle"})
        error = raised.value
        assert (error.status, error.code, error.disposition, error.sequence) == (
            422,
            "idempotency_collision",
            "collision",
            original.sequence,
        )
        assert isinstance(error, ProcessNotificationsError)

    def test_a_bad_field_is_named(self, client: Client, loop: Loop) -> None:
        notices: list[RetryNotice] = []
        with pytest.raises(ProblemError) as raised:
            client.deliver_completion(notification(loop.session_id, loop.loop_id, process_handle="no spaces"), on_retry=notices.append)
        assert (raised.value.status, raised.value.code, raised.value.field) == (400, "invalid_field", "process_handle")
        with pytest.raises(ProblemError) as unknown:
            client.deliver_completion({**notification(loop.session_id, loop.loop_id), "command_line": "make"})
        assert (unknown.value.code, unknown.value.field) == ("invalid_field", "command_line")
        assert notices == []  # final: not retried

    def test_a_wrong_token_is_unauthorized(self, server: ServerProcess, loop: Loop) -> None:
        with Client(server.url, "not-a-token") as stranger:
            with pytest.raises(ProblemError) as raised:
                stranger.deliver_completion(notification(loop.session_id, loop.loop_id))
        assert (raised.value.status, raised.value.code) == (401, "unauthorized")

    def test_a_stopped_loop_answers_delivery_stopped_with_its_cause_at_once(self, client: Client, loop: Loop) -> None:
        stopped = client.stop_loop(loop.session_id, loop.loop_id)
        assert stopped.state == "stopped"
        notices: list[RetryNotice] = []
        sent = notification(loop.session_id, loop.loop_id)
        with pytest.raises(ProblemError) as raised:
            client.deliver_completion(sent, on_retry=notices.append)
        error = raised.value
        assert (error.status, error.code, error.disposition, error.cause) == (503, "delivery_stopped", "stopped", "loop_stopped")
        assert error.retry_after is not None
        assert notices == []  # loop_stopped is final
        # It was journaled all the same.
        records = client.journal(loop.session_id).records
        assert [r.idempotency_id for r in records if r.kind == "process_notification"] == [sent["command_id"]]

    def test_a_full_loop_is_retried_no_sooner_than_retry_after_until_it_has_room(self, client: Client, loop: Loop) -> None:
        # Fill the loop's pending set (its capacity), then free one place from the retry's wait.
        capacity = client.get_loop(loop.session_id, loop.loop_id).capacity
        held = [notification(loop.session_id, loop.loop_id) for _ in range(capacity)]
        for each in held:
            client.deliver_completion(each)
        waits: list[float] = []

        def sleep(seconds: float) -> None:
            waits.append(seconds)
            client.consume(loop.session_id, loop.loop_id, held[len(waits) - 1]["command_id"])

        notices: list[RetryNotice] = []
        policy = RetryPolicy(sleep=sleep, random=lambda: 0.0)
        delivery = client.deliver_completion(notification(loop.session_id, loop.loop_id), retry=policy, on_retry=notices.append)
        assert delivery.disposition == "accepted"
        assert [(n.operation, n.attempt, isinstance(n.error, ProblemError) and n.error.cause) for n in notices] == [
            ("deliver_completion", 1, "inbox_full")
        ]
        retry_after = notices[0].error.retry_after if isinstance(notices[0].error, ProblemError) else None
        assert retry_after is not None and retry_after > 0
        # Full jitter drew 0 here: the wait is the server's Retry-After, no shorter.
        assert waits == [retry_after]
        assert "inbox_full" in notices[0].reason


class TestPending:
    def test_pending_notifications_with_and_without_an_outcome(self, client: Client, loop: Loop) -> None:
        without = notification(loop.session_id, loop.loop_id, process_handle="no-outcome")
        with_outcome = notification(loop.session_id, loop.loop_id, process_handle="with-outcome")
        client.deliver_completion(without)
        client.deliver_completion(with_outcome)
        record = completed_record(with_outcome, exit_code=7)
        published = client.publish_lifecycle(record)
        assert published.appended
        pending = client.pending_notifications(loop.session_id, loop.loop_id)
        assert [(n.process_handle, n.outcome) for n in pending][0] == ("no-outcome", None)
        outcome = pending[1].outcome
        assert outcome is not None
        assert (outcome.event_id, outcome.kind, outcome.has_exit_code, outcome.exit_code, outcome.diagnostic) == (
            record["event_id"],
            "completed",
            True,
            7,
            None,
        )
        assert (outcome.process_started_at, outcome.process_finished_at) == (
            record["process_started_at"],
            record["process_finished_at"],
        )
        assert pending[0].sequence < pending[1].sequence
        assert outcome.signal is None

    def test_the_signal_that_ended_a_command(self, client: Client, loop: Loop) -> None:
        crashed = notification(loop.session_id, loop.loop_id, state="killed", reason="killed")
        timed_out = notification(loop.session_id, loop.loop_id, state="timed_out", reason="timed_out")
        for sent, record in ((crashed, signalled_record(crashed)), (timed_out, signalled_record(timed_out, "timed_out", "SIGKILL"))):
            client.deliver_completion(sent)
            client.publish_lifecycle(record)
        pending = client.pending_notifications(loop.session_id, loop.loop_id)
        assert [(n.state, n.outcome and (n.outcome.has_exit_code, n.outcome.exit_code, n.outcome.signal)) for n in pending] == [
            ("killed", (False, None, "SIGSEGV")),
            ("timed_out", (False, None, "SIGKILL")),
        ]
        found = client.wait_for_completion(loop.session_id, loop.loop_id, command_id=crashed["command_id"], timeout=30)
        assert found.outcome is not None and found.outcome.signal == "SIGSEGV"


class TestWaitForCompletion:
    def test_finds_a_completion_journaled_before_the_call(self, client: Client, loop: Loop) -> None:
        sent = notification(loop.session_id, loop.loop_id)
        client.deliver_completion(sent)
        client.publish_lifecycle(completed_record(sent, exit_code=3))
        found = client.wait_for_completion(loop.session_id, loop.loop_id, command_id=sent["command_id"].upper(), timeout=30)
        assert found.command_id == sent["command_id"]
        assert found.outcome is not None and found.outcome.exit_code == 3

    def test_waits_for_a_later_completion_and_its_outcome(self, client: Client, loop: Loop) -> None:
        sent = notification(loop.session_id, loop.loop_id)
        result: list[PendingNotification] = []
        waiter = threading.Thread(
            target=lambda: result.append(
                client.wait_for_completion(loop.session_id, loop.loop_id, command_id=sent["command_id"], timeout=60)
            )
        )
        waiter.start()
        # Another loop's completion of the same session first: not the one waited for.
        with Client(client.base_url, ADMIN_TOKEN) as admin:
            other = admin.open_loop(loop.session_id)
        client.deliver_completion(notification(loop.session_id, other.loop_id))
        client.deliver_completion(sent)
        client.publish_lifecycle(completed_record(sent, exit_code=0))
        waiter.join(90)
        assert len(result) == 1
        assert result[0].command_id == sent["command_id"]
        assert result[0].outcome is not None and result[0].outcome.exit_code == 0

    def test_returns_the_notification_without_an_outcome_at_the_timeout(self, client: Client, loop: Loop) -> None:
        sent = notification(loop.session_id, loop.loop_id)
        client.deliver_completion(sent)
        found = client.wait_for_completion(loop.session_id, loop.loop_id, command_id=sent["command_id"], timeout=1.0)
        assert (found.command_id, found.outcome) == (sent["command_id"], None)

    def test_does_not_wait_for_the_outcome_when_told_not_to(self, client: Client, loop: Loop) -> None:
        sent = notification(loop.session_id, loop.loop_id)
        client.deliver_completion(sent)
        # It returns as soon as the notification is known, long before the timeout.
        found = client.wait_for_completion(
            loop.session_id, loop.loop_id, command_id=sent["command_id"], timeout=60, wait_for_outcome=False
        )
        assert (found.command_id, found.outcome) == (sent["command_id"], None)

    def test_raises_timeout_error_when_nothing_came(self, client: Client, loop: Loop) -> None:
        with pytest.raises(TimeoutError) as raised:
            client.wait_for_completion(loop.session_id, loop.loop_id, command_id=str(uuid.uuid4()), timeout=0.5)
        assert isinstance(raised.value, CompletionTimeoutError)
        assert raised.value.timeout == 0.5

    def test_waits_by_handle(self, client: Client, loop: Loop) -> None:
        first = notification(loop.session_id, loop.loop_id, process_handle="build-1a2b3c4d")
        second = notification(loop.session_id, loop.loop_id, process_handle="test-5e6f7a8b")
        for each in (first, second):
            client.deliver_completion(each)
            client.publish_lifecycle(completed_record(each, exit_code=1))
        found = client.wait_for_completion(loop.session_id, loop.loop_id, process_handle="test-5e6f7a8b", timeout=30)
        assert found.command_id == second["command_id"]

    @pytest.mark.parametrize("ids", [{}, {"command_id": str(uuid.uuid4()), "process_handle": "make-test"}])
    def test_takes_exactly_one_id(self, client: Client, loop: Loop, ids: dict[str, Any]) -> None:
        with pytest.raises(ValueError):
            client.wait_for_completion(loop.session_id, loop.loop_id, timeout=1, **ids)


class TestCompletions:
    def test_yields_pending_ones_in_order_then_each_later_one_once_and_its_outcome_across_a_dropped_stream(
        self, database: Path
    ) -> None:
        port = free_port()
        server = ServerProcess(database, port)
        try:
            with Client(server.url, ADMIN_TOKEN) as admin:
                session = admin.create_session()
            notices: list[RetryNotice] = []
            with Client(server.url, session.token, retry=RetryPolicy(base_delay=0.05, max_delay=0.5)) as client:
                loop = client.open_loop(session.session_id, retry=False)
                sid, lid = session.session_id, loop.loop_id
                first = notification(sid, lid, process_handle="first")
                second = notification(sid, lid, process_handle="second")
                client.deliver_completion(first)
                client.publish_lifecycle(completed_record(first, exit_code=0))
                client.deliver_completion(second)
                updates = client.completions(sid, lid, on_retry=notices.append)
                # The first's outcome was journaled after it: replayed as new, then as its outcome.
                got = [next(updates) for _ in range(3)]
                # A later one, journaled while the iterator is between items, then its outcome.
                third = notification(sid, lid, process_handle="third")
                client.deliver_completion(third)
                got.append(next(updates))
                client.publish_lifecycle(completed_record(third, exit_code=4))
                got.append(next(updates))
                # The iterator now follows the event stream: the server dies and comes back on the same database.
                server.kill()
                server = ServerProcess(database, port)
                fourth = notification(sid, lid, process_handle="fourth")
                client.deliver_completion(fourth)
                got.append(next(updates))
                client.publish_lifecycle(completed_record(fourth, exit_code=5))
                got.append(next(updates))
                # The caller stops: the iterator ends and says so.
                updates.close()
                with pytest.raises(StopIteration):
                    next(updates)
            assert updates_of(got) == [
                (first["command_id"], "new", None),
                (first["command_id"], "outcome", 0),
                (second["command_id"], "new", None),
                (third["command_id"], "new", None),
                (third["command_id"], "outcome", 4),
                (fourth["command_id"], "new", None),
                (fourth["command_id"], "outcome", 5),
            ]
            # The drop was seen and survived: the loop's stream was reconnected.
            assert any(notice.operation == "loop_events" for notice in notices)
        finally:
            server.stop()

    def test_resumes_after_a_sequence(self, client: Client, loop: Loop) -> None:
        first = notification(loop.session_id, loop.loop_id)
        second = notification(loop.session_id, loop.loop_id)
        done = client.deliver_completion(first)
        client.deliver_completion(second)
        updates = client.completions(loop.session_id, loop.loop_id, after_sequence=done.sequence, deadline=60)
        try:
            item = next(updates)
        finally:
            updates.close()
        assert (item.notification.command_id, item.update) == (second["command_id"], "new")
        with pytest.raises(ValueError):
            client.completions(loop.session_id, loop.loop_id, after_sequence=-1)

    def test_does_not_yield_a_notification_consumed_before_it_was_read(self, client: Client, loop: Loop) -> None:
        gone = notification(loop.session_id, loop.loop_id)
        kept = notification(loop.session_id, loop.loop_id)
        client.deliver_completion(gone)
        client.deliver_completion(kept)
        client.consume(loop.session_id, loop.loop_id, gone["command_id"])
        updates = client.completions(loop.session_id, loop.loop_id, deadline=60)
        try:
            assert next(updates).notification.command_id == kept["command_id"]
            last = notification(loop.session_id, loop.loop_id)
            client.deliver_completion(last)
            assert next(updates).notification.command_id == last["command_id"]
        finally:
            updates.close()

class TestConsumeAndJournal:
    def test_consume_twice_and_an_unknown_id(self, client: Client, loop: Loop) -> None:
        sent = notification(loop.session_id, loop.loop_id)
        delivered = client.deliver_completion(sent)
        first = client.consume(loop.session_id, loop.loop_id, sent["command_id"])
        second = client.consume(loop.session_id, loop.loop_id, sent["command_id"])
        assert (first.consumed, second.consumed) == (True, False)
        assert first.sequence > delivered.sequence
        assert client.pending_notifications(loop.session_id, loop.loop_id) == []
        with pytest.raises(ProblemError) as raised:
            client.consume(loop.session_id, loop.loop_id, str(uuid.uuid4()))
        assert (raised.value.status, raised.value.code) == (404, "not_found")

    def test_journal_pages_and_events_resuming_after_last_event_id(self, client: Client, loop: Loop) -> None:
        sent = [notification(loop.session_id, loop.loop_id) for _ in range(5)]
        for each in sent:
            client.deliver_completion(each)
        page = client.journal(loop.session_id, limit=2)
        rest = client.journal(loop.session_id, after=page.next_after, limit=100)
        records = page.records + rest.records
        assert [r.idempotency_id for r in records] == [each["command_id"] for each in sent]
        assert page.next_after == records[1].sequence
        assert records[0].payload == sent[0]
        assert (records[0].kind, records[0].loop_id, records[0].cause_command_id) == ("process_notification", loop.loop_id, None)
        events = client.events(loop.session_id, last_event_id=records[2].sequence, deadline=60)
        try:
            streamed = [next(events), next(events)]
        finally:
            events.close()
        assert streamed == records[3:]


class TestNoServer:
    def test_reads_fail_fast_on_a_closed_port(self) -> None:
        notices: list[RetryNotice] = []
        with Client(f"http://127.0.0.1:{free_port()}", "token", on_retry=notices.append) as client:
            with pytest.raises(NetworkError):
                client.get_session(str(uuid.uuid4()))
            with pytest.raises(NetworkError):
                client.health()
            # Asked to, a read retries as a delivery does.
            with pytest.raises(NetworkError):
                client.health(retry=RetryPolicy(max_attempts=2, sleep=lambda _s: None))
        assert [notice.operation for notice in notices] == ["health"]

    def test_a_delivery_retries_until_its_deadline_and_raises_the_last_error(self) -> None:
        clock = [1_000_000.0]
        waits: list[float] = []

        def sleep(seconds: float) -> None:
            waits.append(seconds)
            clock[0] += seconds

        policy = RetryPolicy(base_delay=0.25, max_delay=30.0, sleep=sleep, now=lambda: clock[0])
        notices: list[RetryNotice] = []
        with Client(f"http://127.0.0.1:{free_port()}", "token", retry=policy) as client:
            with pytest.raises(NetworkError):
                client.deliver_completion(notification(str(uuid.uuid4()), str(uuid.uuid4())), deadline=10.0, on_retry=notices.append)
        assert len(notices) >= 2
        # Each wait within its backoff ceiling, and none ending past the deadline.
        for notice in notices:
            assert 0 <= notice.delay <= min(30.0, 0.25 * 2 ** (notice.attempt - 1))
        assert sum(waits) < 10.0
        assert waits == [notice.delay for notice in notices]

    def test_the_loop_helpers_retry_their_reads_until_their_deadline_unless_told_not_to(self) -> None:
        sid, lid = str(uuid.uuid4()), str(uuid.uuid4())
        notices: list[RetryNotice] = []
        with Client(f"http://127.0.0.1:{free_port()}", "token", retry=RetryPolicy(base_delay=0.05, max_delay=0.1)) as client:
            with pytest.raises(NetworkError):
                next(client.completions(sid, lid, retry=False))
            # Retried as deliveries are, until the deadline ends the iteration quietly.
            assert list(client.completions(sid, lid, deadline=0.3, on_retry=notices.append)) == []
            assert notices and {notice.operation for notice in notices} == {"loop_events"}
            # The server never answered: no notification could come, and the wait says so.
            with pytest.raises(NetworkError):
                client.wait_for_completion(sid, lid, command_id=str(uuid.uuid4()), timeout=None, deadline=0.3)

    def test_a_wait_on_a_closed_port_is_a_network_error_naming_the_server_after_the_retries(self) -> None:
        base_url = f"http://127.0.0.1:{free_port()}"
        notices: list[RetryNotice] = []
        with Client(base_url, "token", retry=RetryPolicy(base_delay=0.02, max_delay=0.05), on_retry=notices.append) as client:
            with pytest.raises(NetworkError) as raised:
                client.wait_for_completion(str(uuid.uuid4()), str(uuid.uuid4()), command_id=str(uuid.uuid4()), timeout=0.5)
        assert not isinstance(raised.value, TimeoutError)
        assert f"cannot reach {base_url} (ConnectError" in str(raised.value)
        assert "waited 0.5 s" in str(raised.value)
        # It retried as the policy says, until the timeout.
        assert len(notices) > 1 and {notice.operation for notice in notices} == {"loop_events"}
        # A policy that gives up sooner: its failure, at once.
        with Client(base_url, "token", retry=RetryPolicy(max_attempts=2, base_delay=0.01)) as brief:
            with pytest.raises(NetworkError, match=base_url):
                brief.wait_for_completion(str(uuid.uuid4()), str(uuid.uuid4()), process_handle="p", timeout=60)


def test_events_and_completions_end_quietly_at_their_deadline(client: Client, loop: Loop) -> None:
    sent = notification(loop.session_id, loop.loop_id)
    delivered = client.deliver_completion(sent)
    assert list(client.events(loop.session_id, last_event_id=delivered.sequence, deadline=0.5)) == []
    items = list(client.completions(loop.session_id, loop.loop_id, deadline=0.5))
    assert updates_of(items) == [(sent["command_id"], "new", None)]

"""The asynchronous client against the real server: the same calls, answers, errors and retries
as the synchronous one (spec section 15)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from process_notifications import (
    AsyncClient,
    CompletionTimeoutError,
    CompletionUpdate,
    NetworkError,
    ProblemError,
    RetryNotice,
    RetryPolicy,
)

from conftest import Loop
from support import ADMIN_TOKEN, ServerProcess, completed_record, free_port, notification, signalled_record

pytestmark = pytest.mark.asyncio


def updates_of(items: list[CompletionUpdate]) -> list[tuple[str, str, int | None]]:
    return [
        (item.notification.command_id, item.update, None if item.notification.outcome is None else item.notification.outcome.exit_code)
        for item in items
    ]


async def test_opens_a_session_and_a_loop_and_delivers(server: ServerProcess) -> None:
    async with AsyncClient(server.url, ADMIN_TOKEN) as admin:
        session = await admin.create_session()
        async with admin.with_token(session.token) as client:
            loop = await client.open_loop(session.session_id)
            sent = notification(session.session_id, loop.loop_id)
            delivery = await client.deliver_completion(sent)
            assert (delivery.disposition, delivery.appended) == ("accepted", True)
            assert (await client.get_loop(session.session_id, loop.loop_id)).pending == 1
            assert [each.loop_id for each in (await client.get_session(session.session_id)).loops] == [loop.loop_id]
            assert await client.health()


async def test_an_identical_retry_is_a_duplicate_also_with_upper_case_ids(aclient: AsyncClient, loop: Loop) -> None:
    sent = notification(loop.session_id, loop.loop_id)
    first = await aclient.deliver_completion(sent)
    upper = {**sent, **{key: sent[key].upper() for key in ("command_id", "session_id", "loop_id")}}
    for retry in (sent, upper):
        again = await aclient.deliver_completion(retry)
        assert (again.disposition, again.sequence, again.appended) == ("duplicate", first.sequence, False)


async def test_a_collision_a_bad_field_and_a_wrong_token(server: ServerProcess, aclient: AsyncClient, loop: Loop) -> None:
    sent = notification(loop.session_id, loop.loop_id)
    original = await aclient.deliver_completion(sent)
    with pytest.raises(ProblemError) as collision:
        await aclient.deliver_completion({**sent, "process_handle": "another-handle"})
    assert (collision.value.code, collision.value.disposition, collision.value.sequence) == (
        "idempotency_collision",
        "collision",
        original.sequence,
    )
    with pytest.raises(ProblemError) as bad:
        await aclient.deliver_completion({**notification(loop.session_id, loop.loop_id), "loop_id": "not-a-uuid"})
    assert (bad.value.status, bad.value.code, bad.value.field) == (400, "invalid_field", "loop_id")
    async with AsyncClient(server.url, "not-a-token") as stranger:
        with pytest.raises(ProblemError) as unauthorized:
            await stranger.pending_notifications(loop.session_id, loop.loop_id)
    assert (unauthorized.value.status, unauthorized.value.code) == (401, "unauthorized")


async def test_a_stopped_loop_answers_delivery_stopped_with_its_cause_at_once(aclient: AsyncClient, loop: Loop) -> None:
    assert (await aclient.stop_loop(loop.session_id, loop.loop_id)).state == "stopped"
    notices: list[RetryNotice] = []
    with pytest.raises(ProblemError) as raised:
        await aclient.deliver_completion(notification(loop.session_id, loop.loop_id), on_retry=notices.append)
    assert (raised.value.code, raised.value.disposition, raised.value.cause) == ("delivery_stopped", "stopped", "loop_stopped")
    assert notices == []


async def test_pending_notifications_with_and_without_an_outcome(aclient: AsyncClient, loop: Loop) -> None:
    without = notification(loop.session_id, loop.loop_id)
    with_outcome = notification(loop.session_id, loop.loop_id)
    await aclient.deliver_completion(without)
    await aclient.deliver_completion(with_outcome)
    record = completed_record(with_outcome, exit_code=2)
    await aclient.publish_lifecycle(record)
    pending = await aclient.pending_notifications(loop.session_id, loop.loop_id)
    assert [n.command_id for n in pending] == [without["command_id"], with_outcome["command_id"]]
    assert pending[0].outcome is None
    assert pending[1].outcome is not None and (pending[1].outcome.event_id, pending[1].outcome.exit_code) == (record["event_id"], 2)
    assert pending[1].outcome.signal is None


async def test_the_signal_that_ended_a_command(aclient: AsyncClient, loop: Loop) -> None:
    crashed = notification(loop.session_id, loop.loop_id, state="killed", reason="killed")
    await aclient.deliver_completion(crashed)
    await aclient.publish_lifecycle(signalled_record(crashed, "killed", "SIGUSR1"))
    pending = await aclient.pending_notifications(loop.session_id, loop.loop_id)
    assert pending[0].outcome is not None and (pending[0].outcome.exit_code, pending[0].outcome.signal) == (None, "SIGUSR1")
    found = await aclient.wait_for_completion(loop.session_id, loop.loop_id, command_id=crashed["command_id"], timeout=30)
    assert found.outcome is not None and found.outcome.signal == "SIGUSR1"


async def test_wait_for_completion_journaled_before_the_call(aclient: AsyncClient, loop: Loop) -> None:
    sent = notification(loop.session_id, loop.loop_id)
    await aclient.deliver_completion(sent)
    await aclient.publish_lifecycle(completed_record(sent, exit_code=3))
    found = await aclient.wait_for_completion(loop.session_id, loop.loop_id, command_id=sent["command_id"], timeout=30)
    assert found.outcome is not None and found.outcome.exit_code == 3


async def test_wait_for_a_later_completion_and_its_outcome(aclient: AsyncClient, loop: Loop) -> None:
    sent = notification(loop.session_id, loop.loop_id, process_handle="later-0a1b2c3d")
    waiting = asyncio.create_task(
        aclient.wait_for_completion(loop.session_id, loop.loop_id, process_handle="later-0a1b2c3d", timeout=60)
    )
    await aclient.deliver_completion(sent)
    await aclient.publish_lifecycle(completed_record(sent, exit_code=0))
    found = await asyncio.wait_for(waiting, 90)
    assert found.command_id == sent["command_id"]
    assert found.outcome is not None and found.outcome.exit_code == 0


async def test_wait_for_completion_at_the_timeout(aclient: AsyncClient, loop: Loop) -> None:
    sent = notification(loop.session_id, loop.loop_id)
    await aclient.deliver_completion(sent)
    found = await aclient.wait_for_completion(loop.session_id, loop.loop_id, command_id=sent["command_id"], timeout=1.0)
    assert (found.command_id, found.outcome) == (sent["command_id"], None)
    quick = await aclient.wait_for_completion(
        loop.session_id, loop.loop_id, command_id=sent["command_id"], timeout=60, wait_for_outcome=False
    )
    assert quick.command_id == sent["command_id"]
    with pytest.raises(TimeoutError) as raised:
        await aclient.wait_for_completion(loop.session_id, loop.loop_id, command_id=str(uuid.uuid4()), timeout=0.5)
    assert isinstance(raised.value, CompletionTimeoutError)


@pytest.mark.parametrize("ids", [{}, {"command_id": str(uuid.uuid4()), "process_handle": "make-test"}])
async def test_wait_for_completion_takes_exactly_one_id(aclient: AsyncClient, loop: Loop, ids: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        await aclient.wait_for_completion(loop.session_id, loop.loop_id, timeout=1, **ids)


async def test_completions_across_a_dropped_stream_until_cancelled(database: Path) -> None:
    port = free_port()
    server = ServerProcess(database, port)
    try:
        async with AsyncClient(server.url, ADMIN_TOKEN) as admin:
            session = await admin.create_session()
        notices: list[RetryNotice] = []
        policy = RetryPolicy(base_delay=0.05, max_delay=0.5)
        async with AsyncClient(server.url, session.token, retry=policy, on_retry=notices.append) as client:
            sid = session.session_id
            lid = (await client.open_loop(sid)).loop_id
            first = notification(sid, lid)
            second = notification(sid, lid)
            await client.deliver_completion(first)
            await client.publish_lifecycle(completed_record(first, exit_code=0))
            await client.deliver_completion(second)
            got: list[CompletionUpdate] = []
            taken = asyncio.Queue[CompletionUpdate]()

            async def follow() -> None:
                async for item in client.completions(sid, lid):
                    got.append(item)
                    await taken.put(item)

            task = asyncio.create_task(follow())
            for _ in range(3):
                await asyncio.wait_for(taken.get(), 60)
            third = notification(sid, lid)
            await client.deliver_completion(third)
            await asyncio.wait_for(taken.get(), 60)
            await client.publish_lifecycle(completed_record(third, exit_code=4))
            await asyncio.wait_for(taken.get(), 60)
            server.kill()
            server = ServerProcess(database, port)
            fourth = notification(sid, lid)
            await client.deliver_completion(fourth)
            await asyncio.wait_for(taken.get(), 60)
            await client.publish_lifecycle(completed_record(fourth, exit_code=5))
            await asyncio.wait_for(taken.get(), 60)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert task.cancelled()
        assert updates_of(got) == [
            (first["command_id"], "new", None),
            (first["command_id"], "outcome", 0),
            (second["command_id"], "new", None),
            (third["command_id"], "new", None),
            (third["command_id"], "outcome", 4),
            (fourth["command_id"], "new", None),
            (fourth["command_id"], "outcome", 5),
        ]
        assert any(notice.operation == "loop_events" for notice in notices)
    finally:
        server.stop()


async def test_consume_twice_and_an_unknown_id(aclient: AsyncClient, loop: Loop) -> None:
    sent = notification(loop.session_id, loop.loop_id)
    await aclient.deliver_completion(sent)
    first = await aclient.consume(loop.session_id, loop.loop_id, sent["command_id"])
    second = await aclient.consume(loop.session_id, loop.loop_id, sent["command_id"])
    assert (first.consumed, second.consumed, second.sequence) == (True, False, first.sequence)
    with pytest.raises(ProblemError) as raised:
        await aclient.consume(loop.session_id, loop.loop_id, str(uuid.uuid4()))
    assert raised.value.code == "not_found"


async def test_journal_pages_and_events_resuming_after_last_event_id(aclient: AsyncClient, loop: Loop) -> None:
    sent = [notification(loop.session_id, loop.loop_id) for _ in range(4)]
    for each in sent:
        await aclient.deliver_completion(each)
    page = await aclient.journal(loop.session_id, limit=3)
    rest = await aclient.journal(loop.session_id, after=page.next_after)
    records = page.records + rest.records
    assert [r.idempotency_id for r in records] == [each["command_id"] for each in sent]
    events = aclient.events(loop.session_id, last_event_id=records[1].sequence, deadline=60)
    try:
        streamed = [await events.__anext__(), await events.__anext__()]
    finally:
        await events.aclose()
    assert streamed == records[2:]


async def test_a_closed_port_fails_fast_for_reads_and_within_its_deadline_for_deliveries() -> None:
    clock = [1_000_000.0]
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock[0] += seconds

    policy = RetryPolicy(async_sleep=sleep, now=lambda: clock[0])
    notices: list[RetryNotice] = []
    async with AsyncClient(f"http://127.0.0.1:{free_port()}", "token", retry=policy, on_retry=notices.append) as client:
        with pytest.raises(NetworkError):
            await client.get_loop(str(uuid.uuid4()), str(uuid.uuid4()))
        assert notices == []
        with pytest.raises(NetworkError):
            await client.deliver_completion(notification(str(uuid.uuid4()), str(uuid.uuid4())), deadline=10.0)
    assert len(notices) >= 2 and {notice.operation for notice in notices} == {"deliver_completion"}
    assert sum(waits) < 10.0


async def test_a_wait_on_a_closed_port_is_a_network_error_naming_the_server_after_the_retries() -> None:
    base_url = f"http://127.0.0.1:{free_port()}"
    notices: list[RetryNotice] = []
    policy = RetryPolicy(base_delay=0.02, max_delay=0.05)
    async with AsyncClient(base_url, "token", retry=policy, on_retry=notices.append) as client:
        with pytest.raises(NetworkError) as raised:
            await client.wait_for_completion(str(uuid.uuid4()), str(uuid.uuid4()), command_id=str(uuid.uuid4()), timeout=0.5)
    assert not isinstance(raised.value, TimeoutError)
    assert f"cannot reach {base_url} (ConnectError" in str(raised.value)
    assert "waited 0.5 s" in str(raised.value)
    # It retried as the policy says, until the timeout.
    assert len(notices) > 1 and {notice.operation for notice in notices} == {"loop_events"}
    # A policy that gives up sooner: its failure, at once.
    async with AsyncClient(base_url, "token", retry=RetryPolicy(max_attempts=2, base_delay=0.01)) as brief:
        with pytest.raises(NetworkError, match=base_url):
            await brief.wait_for_completion(str(uuid.uuid4()), str(uuid.uuid4()), process_handle="p", timeout=60)


async def test_events_and_completions_end_quietly_at_their_deadline(aclient: AsyncClient, loop: Loop) -> None:
    sent = notification(loop.session_id, loop.loop_id)
    delivered = await aclient.deliver_completion(sent)
    assert [r.sequence async for r in aclient.events(loop.session_id, last_event_id=delivered.sequence, deadline=0.5)] == []
    items = [item async for item in aclient.completions(loop.session_id, loop.loop_id, deadline=0.5)]
    assert updates_of(items) == [(sent["command_id"], "new", None)]

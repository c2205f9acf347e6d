"""completions() and wait_for_completion() on the loop's own stream (issue 37), sync and async,
against the real server: one request for a whole iteration, whatever the backlog."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from process_notifications import AsyncClient, Client, CompletionUpdate, ProblemError

from conftest import Loop
from support import RequestLog, ServerProcess, completed_record, notification

BACKLOG = 2000
LIVE = 20


def journal_all(client: Client, sent: list[dict[str, Any]]) -> None:
    """Delivers each, once, in order: past the loop's capacity a delivery is refused
    ``inbox_full``, and journaled all the same (it is the loop's work)."""
    for body in sent:
        try:
            client.deliver_completion(body, retry=False)
        except ProblemError as refused:
            assert (refused.code, refused.cause) == ("delivery_stopped", "inbox_full")


async def ajournal_all(client: AsyncClient, sent: list[dict[str, Any]], at_once: int = 1) -> None:
    """As :func:`journal_all`, ``at_once`` at a time (then in no set order)."""

    async def one(body: dict[str, Any]) -> None:
        try:
            await client.deliver_completion(body, retry=False)
        except ProblemError as refused:
            assert (refused.code, refused.cause) == ("delivery_stopped", "inbox_full")

    for start in range(0, len(sent), at_once):
        await asyncio.gather(*(one(body) for body in sent[start : start + at_once]))


def backlog_of(url: str, token: str, sid: str, lid: str) -> list[dict[str, Any]]:
    """:data:`BACKLOG` notifications journaled for the loop, quickly (so in no set order)."""
    sent = [notification(sid, lid) for _ in range(BACKLOG)]

    async def journal() -> None:
        async with AsyncClient(url, token) as client:
            await ajournal_all(client, sent, at_once=16)

    asyncio.run(journal())
    return sent


def check_backlog(got: list[CompletionUpdate], backlog: list[dict[str, Any]]) -> None:
    """Each notification of the backlog once as new, in journal order."""
    assert sorted(item.notification.command_id for item in got) == sorted(body["command_id"] for body in backlog)
    assert {item.update for item in got} == {"new"}
    sequences = [item.notification.sequence for item in got]
    assert sequences == sorted(set(sequences))


def ids(items: list[CompletionUpdate]) -> list[tuple[str, str]]:
    return [(item.notification.command_id, item.update) for item in items]


def test_completions_reads_a_large_backlog_and_live_ones_with_one_request(server: ServerProcess, client: Client, loop: Loop) -> None:
    sid, lid = loop.session_id, loop.loop_id
    backlog = backlog_of(server.url, loop.token, sid, lid)
    with Client(server.url, loop.token) as reader:
        log = RequestLog().watch(reader._http)
        updates = reader.completions(sid, lid, deadline=180)
        try:
            got = [next(updates) for _ in range(BACKLOG)]
            live = [notification(sid, lid) for _ in range(LIVE)]
            journal_all(client, live)
            client.publish_lifecycle(completed_record(backlog[0], exit_code=7))
            got += [next(updates) for _ in range(LIVE + 1)]
        finally:
            updates.close()
        check_backlog(got[:BACKLOG], backlog)
        assert ids(got[BACKLOG:]) == [(body["command_id"], "new") for body in live] + [(backlog[0]["command_id"], "outcome")]
        assert got[-1].notification.outcome is not None and got[-1].notification.outcome.exit_code == 7
        # The whole iteration was the loop's stream, once: no page, no pending view per item.
        assert log.paths == [f"/v1/sessions/{sid}/loops/{lid}/events"]
        log.paths.clear()
        found = reader.wait_for_completion(sid, lid, command_id=live[-1]["command_id"], timeout=120, wait_for_outcome=False)
        assert found.command_id == live[-1]["command_id"]
        assert log.paths == [f"/v1/sessions/{sid}/loops/{lid}/events"]
        # What the stream gave is consumed at once, those refused inbox_full (never in the
        # pending set) included: no 404 for a notification journaled for the loop.
        results = reader.consume_many(sid, lid, [body["command_id"] for body in backlog[-256:]])
        assert [(result.consumed, result.code) for result in results] == [(True, None)] * 256


@pytest.mark.asyncio
async def test_async_completions_reads_a_large_backlog_and_live_ones_with_one_request(
    server: ServerProcess, aclient: AsyncClient, loop: Loop
) -> None:
    sid, lid = loop.session_id, loop.loop_id
    backlog = [notification(sid, lid) for _ in range(BACKLOG)]
    await ajournal_all(aclient, backlog, at_once=16)
    async with AsyncClient(server.url, loop.token) as reader:
        log = RequestLog().watch(reader._http)
        updates = reader.completions(sid, lid)
        try:
            got = [await asyncio.wait_for(updates.__anext__(), 120) for _ in range(BACKLOG)]
            live = [notification(sid, lid) for _ in range(LIVE)]
            await ajournal_all(aclient, live)
            await aclient.publish_lifecycle(completed_record(backlog[0], exit_code=7))
            got += [await asyncio.wait_for(updates.__anext__(), 60) for _ in range(LIVE + 1)]
        finally:
            await updates.aclose()
        check_backlog(got[:BACKLOG], backlog)
        assert ids(got[BACKLOG:]) == [(body["command_id"], "new") for body in live] + [(backlog[0]["command_id"], "outcome")]
        assert log.paths == [f"/v1/sessions/{sid}/loops/{lid}/events"]
        log.paths.clear()
        found = await reader.wait_for_completion(sid, lid, command_id=live[-1]["command_id"], timeout=120, wait_for_outcome=False)
        assert found.command_id == live[-1]["command_id"]
        assert log.paths == [f"/v1/sessions/{sid}/loops/{lid}/events"]


def test_resuming_yields_later_ones_as_new_and_a_later_outcome_of_one_had_before(client: Client, loop: Loop) -> None:
    sid, lid = loop.session_id, loop.loop_id
    had = notification(sid, lid)
    position = client.deliver_completion(had).sequence
    updates = client.completions(sid, lid, after_sequence=position, deadline=60)
    try:
        later = notification(sid, lid)
        client.deliver_completion(later)
        client.publish_lifecycle(completed_record(had, exit_code=2))
        got = [next(updates), next(updates)]
    finally:
        updates.close()
    assert ids(got) == [(later["command_id"], "new"), (had["command_id"], "outcome")]
    assert got[1].notification.outcome is not None and got[1].notification.outcome.exit_code == 2


@pytest.mark.asyncio
async def test_async_resuming_yields_later_ones_as_new_and_a_later_outcome_of_one_had_before(
    aclient: AsyncClient, loop: Loop
) -> None:
    sid, lid = loop.session_id, loop.loop_id
    had = notification(sid, lid)
    position = (await aclient.deliver_completion(had)).sequence
    updates = aclient.completions(sid, lid, after_sequence=position)
    try:
        later = notification(sid, lid)
        await aclient.deliver_completion(later)
        await aclient.publish_lifecycle(completed_record(had, exit_code=2))
        got = [await asyncio.wait_for(updates.__anext__(), 60) for _ in range(2)]
    finally:
        await updates.aclose()
    assert ids(got) == [(later["command_id"], "new"), (had["command_id"], "outcome")]

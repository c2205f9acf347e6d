"""Batch consume, token rotation and closing, sync and async, against the real server: what each
call answers, and which of them are retried."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from process_notifications import (
    AsyncClient,
    Client,
    ConsumeResult,
    Consumption,
    NetworkError,
    ProblemError,
    RetryNotice,
    RetryPolicy,
)

from conftest import Loop
from support import ADMIN_TOKEN, RequestLog, ServerProcess, free_port, notification

FAST = RetryPolicy(base_delay=0.05, max_delay=0.1)


def batch_path(loop: Loop) -> str:
    return f"/v1/sessions/{loop.session_id}/loops/{loop.loop_id}/process-notifications/consume"


class TestConsumeMany:
    def test_answers_each_id_in_order_and_again_as_already_consumed(self, client: Client, loop: Loop) -> None:
        sid, lid = loop.session_id, loop.loop_id
        sent = [notification(sid, lid) for _ in range(2)]
        for body in sent:
            client.deliver_completion(body)
        unknown = str(uuid.uuid4())
        results = client.consume_many(sid, lid, [sent[0]["command_id"], sent[1]["command_id"], unknown])
        assert [(r.command_id, r.consumed, r.code) for r in results] == [
            (sent[0]["command_id"], True, None),
            (sent[1]["command_id"], True, None),
            (unknown, None, "not_found"),
        ]
        assert all(isinstance(r, ConsumeResult) and (r.sequence is None) == (r.code is not None) for r in results)
        assert client.pending_notifications(sid, lid) == []
        again = client.consume_many(sid, lid, (sent[0]["command_id"],))
        assert again == [ConsumeResult(sent[0]["command_id"], False, results[0].sequence, None)]

    def test_takes_1_to_256_ids(self, client: Client, loop: Loop) -> None:
        wrong_ones: list[list[str]] = [[], [str(uuid.uuid4()) for _ in range(257)]]
        for wrong in wrong_ones:
            with pytest.raises(ValueError):
                client.consume_many(loop.session_id, loop.loop_id, wrong)
        with pytest.raises(TypeError):
            client.consume_many(loop.session_id, loop.loop_id, str(uuid.uuid4()))

    def test_is_retried_like_a_consume(self) -> None:
        notices: list[RetryNotice] = []
        with Client(f"http://127.0.0.1:{free_port()}", "token", retry=FAST) as client:
            with pytest.raises(NetworkError):
                client.consume_many(str(uuid.uuid4()), str(uuid.uuid4()), [str(uuid.uuid4())], deadline=0.5, on_retry=notices.append)
        assert notices and {notice.operation for notice in notices} == {"consume_many"}


class TestSessions:
    def test_rotating_the_token_retires_the_old_one_and_is_not_retried(self, server: ServerProcess, client: Client, loop: Loop) -> None:
        rotated = client.rotate_session_token(loop.session_id)
        assert rotated.session_id == loop.session_id and rotated.token != loop.token
        with pytest.raises(ProblemError) as raised:
            client.get_session(loop.session_id)
        assert (raised.value.status, raised.value.code) == (401, "unauthorized")
        with client.with_token(rotated.token) as renewed:
            assert renewed.get_session(loop.session_id).state == "open"
        notices: list[RetryNotice] = []
        with Client(f"http://127.0.0.1:{free_port()}", "token", retry=FAST) as nowhere:
            with pytest.raises(NetworkError):
                nowhere.rotate_session_token(loop.session_id, deadline=0.5, on_retry=notices.append)
        assert notices == []

    def test_closing_answers_the_same_closed_at_and_later_writes_are_refused_at_once(
        self, server: ServerProcess, client: Client, loop: Loop
    ) -> None:
        opened = client.get_session(loop.session_id)
        assert (opened.state, opened.closed_at) == ("open", None)
        closed = client.close_session(loop.session_id)
        assert (closed.session_id, closed.state) == (loop.session_id, "closed")
        with Client(server.url, ADMIN_TOKEN) as admin:
            assert admin.close_session(loop.session_id) == closed
            seen = admin.get_session(loop.session_id)
            assert (seen.state, seen.closed_at) == ("closed", closed.closed_at)
            notices: list[RetryNotice] = []
            with pytest.raises(ProblemError) as raised:
                admin.deliver_completion(notification(loop.session_id, loop.loop_id), on_retry=notices.append)
            assert (raised.value.status, raised.value.code) == (409, "session_closed")
            # Final: not retried.
            assert notices == []
        with pytest.raises(ProblemError) as refused:
            client.get_session(loop.session_id)
        assert refused.value.code == "unauthorized"

    def test_closing_is_retried(self) -> None:
        notices: list[RetryNotice] = []
        with Client(f"http://127.0.0.1:{free_port()}", "token", retry=FAST) as client:
            with pytest.raises(NetworkError):
                client.close_session(str(uuid.uuid4()), deadline=0.5, on_retry=notices.append)
        assert notices and {notice.operation for notice in notices} == {"close_session"}


@pytest.mark.asyncio
async def test_async_consumes_issued_together_travel_as_one_batch(aclient: AsyncClient, loop: Loop) -> None:
    sid, lid = loop.session_id, loop.loop_id
    sent = [notification(sid, lid) for _ in range(10)]
    for body in sent:
        await aclient.deliver_completion(body)
    log = RequestLog().watch(aclient._http)
    unknown = str(uuid.uuid4())
    answers = await asyncio.gather(
        *(aclient.consume(sid, lid, body["command_id"]) for body in sent),
        aclient.consume(sid, lid, unknown),
        return_exceptions=True,
    )
    assert log.paths == [batch_path(loop)]
    assert all(isinstance(answer, Consumption) and answer.consumed for answer in answers[:-1])
    assert isinstance(answers[-1], ProblemError) and answers[-1].code == "not_found"
    # Each answered as if alone: a second consume says already consumed, with the same sequence.
    again = await aclient.consume(sid, lid, sent[0]["command_id"])
    first = answers[0]
    assert isinstance(first, Consumption) and (again.consumed, again.sequence) == (False, first.sequence)
    assert await aclient.pending_notifications(sid, lid) == []


@pytest.mark.asyncio
async def test_async_consume_many_rotation_and_closing(server: ServerProcess, aclient: AsyncClient, loop: Loop) -> None:
    sid, lid = loop.session_id, loop.loop_id
    sent = notification(sid, lid)
    await aclient.deliver_completion(sent)
    unknown = str(uuid.uuid4())
    results = await aclient.consume_many(sid, lid, [sent["command_id"], unknown])
    assert [(r.command_id, r.consumed, r.code) for r in results] == [(sent["command_id"], True, None), (unknown, None, "not_found")]
    with pytest.raises(ValueError):
        await aclient.consume_many(sid, lid, [])
    rotated = await aclient.rotate_session_token(sid)
    with pytest.raises(ProblemError) as raised:
        await aclient.get_session(sid)
    assert raised.value.code == "unauthorized"
    async with aclient.with_token(rotated.token) as renewed:
        closed = await renewed.close_session(sid)
        assert closed.state == "closed"
    async with AsyncClient(server.url, ADMIN_TOKEN) as admin:
        assert await admin.close_session(sid) == closed
        seen = await admin.get_session(sid)
        assert (seen.state, seen.closed_at) == ("closed", closed.closed_at)
        notices: list[RetryNotice] = []
        with pytest.raises(ProblemError) as refused:
            await admin.deliver_completion(notification(sid, lid), on_retry=notices.append)
        assert (refused.value.code, notices) == ("session_closed", [])


@pytest.mark.asyncio
async def test_async_retries_closing_and_batch_consume_but_not_rotation() -> None:
    notices: list[RetryNotice] = []
    async with AsyncClient(f"http://127.0.0.1:{free_port()}", "token", retry=FAST, on_retry=notices.append) as client:
        sid, lid = str(uuid.uuid4()), str(uuid.uuid4())
        with pytest.raises(NetworkError):
            await client.rotate_session_token(sid, deadline=0.5)
        assert notices == []
        with pytest.raises(NetworkError):
            await client.close_session(sid, deadline=0.5)
        with pytest.raises(NetworkError):
            await client.consume_many(sid, lid, [str(uuid.uuid4())], deadline=0.5)
        # A coalesced consume fails as its batch did.
        with pytest.raises(NetworkError):
            await client.consume(sid, lid, str(uuid.uuid4()), deadline=0.5)
    assert {notice.operation for notice in notices} == {"close_session", "consume_many"}

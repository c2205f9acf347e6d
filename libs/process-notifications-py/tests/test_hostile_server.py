"""Issue 45: a hostile or broken server cannot exhaust a client's memory, hold a call past its
timeout or deadline, or raise anything but the client's documented errors. Each test plays the
server (tests/hostile_server.py) and checks what the caller was told against what happened: how
much the client read (counted by the server), how long the call took."""

from __future__ import annotations

import time
import uuid
from typing import Iterator

import pytest

from hostile_server import SILENCE_AFTER, TRICKLE, HostileAnswer, HostileServer
from process_notifications import AsyncClient, BadAnswerError, Client, NetworkError, ProblemError, RetryPolicy

MAX_ANSWER = 1024 * 1024
MAX_EVENT = 64 * 1024
# What sockets on the loopback may hold between the server's writes and the client's reads.
SOCKET_BUFFERS = 16 * 1024 * 1024
TIMEOUT = 0.4
# Scheduling on a loaded machine, not the bound itself: the old code ran past any margin.
MARGIN = 1.5


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    server = HostileServer()
    yield server
    server.close()


def client(hostile: HostileServer, answer: HostileAnswer, request_timeout: float = 30.0) -> Client:
    url = hostile.url_of(answer)
    return Client(url, request_timeout=request_timeout, max_answer_bytes=MAX_ANSWER, max_event_bytes=MAX_EVENT)


def aclient(hostile: HostileServer, answer: HostileAnswer, request_timeout: float = 30.0) -> AsyncClient:
    url = hostile.url_of(answer)
    return AsyncClient(url, request_timeout=request_timeout, max_answer_bytes=MAX_ANSWER, max_event_bytes=MAX_EVENT)


def read_by_client(hostile: HostileServer, answer: str, before: int) -> int:
    time.sleep(0.2)  # the server notices the closed connection, and stops counting
    return hostile.sent[answer] - before


def test_an_endless_answer_fails_past_max_answer_bytes(hostile: HostileServer) -> None:
    before = hostile.sent["endless"]
    with client(hostile, "endless") as c, pytest.raises(BadAnswerError) as failure:
        c.health()
    assert failure.value.code == "answer_too_large"
    assert MAX_ANSWER < read_by_client(hostile, "endless", before) < MAX_ANSWER + SOCKET_BUFFERS


@pytest.mark.asyncio
async def test_an_endless_answer_fails_past_max_answer_bytes_async(hostile: HostileServer) -> None:
    before = hostile.sent["endless"]
    async with aclient(hostile, "endless") as c:
        with pytest.raises(BadAnswerError) as failure:
            await c.health()
    assert failure.value.code == "answer_too_large"
    assert MAX_ANSWER < read_by_client(hostile, "endless", before) < MAX_ANSWER + SOCKET_BUFFERS


def test_the_request_timeout_bounds_the_whole_answer(hostile: HostileServer) -> None:
    with client(hostile, "trickle", request_timeout=TIMEOUT) as c:
        started = time.monotonic()
        with pytest.raises(NetworkError):
            c.health()
        assert TIMEOUT <= time.monotonic() - started < TIMEOUT + MARGIN
        # A deadline bounds a retried write, each attempt's answer included.
        started = time.monotonic()
        with pytest.raises(NetworkError):
            c.stop_loop("s", "l", deadline=TIMEOUT, retry=RetryPolicy(base_delay=0.01))
        assert time.monotonic() - started < TIMEOUT + MARGIN


@pytest.mark.asyncio
async def test_the_request_timeout_bounds_the_whole_answer_async(hostile: HostileServer) -> None:
    async with aclient(hostile, "trickle", request_timeout=TIMEOUT) as c:
        started = time.monotonic()
        with pytest.raises(NetworkError):
            await c.health()
        assert TIMEOUT <= time.monotonic() - started < TIMEOUT + MARGIN
        started = time.monotonic()
        with pytest.raises(NetworkError):
            await c.stop_loop("s", "l", deadline=TIMEOUT, retry=RetryPolicy(base_delay=0.01))
        assert time.monotonic() - started < TIMEOUT + MARGIN


def test_the_request_timeout_bounds_the_status_line_and_headers_too(hostile: HostileServer) -> None:
    # A new connection: the watchdog learns its socket before any byte of the answer.
    with client(hostile, "trickle-headers", request_timeout=TIMEOUT) as c:
        started = time.monotonic()
        with pytest.raises(NetworkError):
            c.health()
        assert time.monotonic() - started < TIMEOUT + MARGIN


@pytest.mark.asyncio
async def test_the_request_timeout_bounds_the_status_line_and_headers_too_async(hostile: HostileServer) -> None:
    async with aclient(hostile, "trickle-headers", request_timeout=TIMEOUT) as c:
        started = time.monotonic()
        with pytest.raises(NetworkError):
            await c.health()
        assert time.monotonic() - started < TIMEOUT + MARGIN


def test_the_request_timeout_holds_when_the_server_goes_silent_mid_answer(hostile: HostileServer) -> None:
    # Each read of a sync answer may wait the whole timeout: once the server went silent just
    # before the timeout, only cutting the connection at the timeout ends the call in time.
    timeout = SILENCE_AFTER + 2 * TRICKLE
    with client(hostile, "trickle-then-silence", request_timeout=timeout) as c:
        started = time.monotonic()
        with pytest.raises(NetworkError):
            c.health()
        assert time.monotonic() - started < timeout + SILENCE_AFTER / 2


@pytest.mark.parametrize("answer", ["endless-line", "endless-event"])
def test_an_event_that_never_ends_fails_past_max_event_bytes(hostile: HostileServer, answer: HostileAnswer) -> None:
    before = hostile.sent[answer]
    with client(hostile, answer) as c, pytest.raises(BadAnswerError) as failure:
        for _ in c.events("s"):
            pass
    assert failure.value.code == "event_too_large"
    assert read_by_client(hostile, answer, before) < MAX_EVENT + SOCKET_BUFFERS


@pytest.mark.asyncio
@pytest.mark.parametrize("answer", ["endless-line", "endless-event"])
async def test_an_event_that_never_ends_fails_past_max_event_bytes_async(hostile: HostileServer, answer: HostileAnswer) -> None:
    before = hostile.sent[answer]
    async with aclient(hostile, answer) as c:
        with pytest.raises(BadAnswerError) as failure:
            async for _ in c.events("s"):
                pass
    assert failure.value.code == "event_too_large"
    assert read_by_client(hostile, answer, before) < MAX_EVENT + SOCKET_BUFFERS


def test_an_endless_error_answer_of_a_stream_is_judged_by_its_status(hostile: HostileServer) -> None:
    before = hostile.sent["endless-error"]
    with client(hostile, "endless-error") as c, pytest.raises(ProblemError) as failure:
        for _ in c.events("s", retry=False):
            pass
    assert (failure.value.status, failure.value.code) == (500, "http_500")
    assert read_by_client(hostile, "endless-error", before) < MAX_ANSWER + SOCKET_BUFFERS


@pytest.mark.asyncio
async def test_an_endless_error_answer_of_a_stream_is_judged_by_its_status_async(hostile: HostileServer) -> None:
    before = hostile.sent["endless-error"]
    async with aclient(hostile, "endless-error") as c:
        with pytest.raises(ProblemError) as failure:
            async for _ in c.events("s", retry=False):
                pass
    assert (failure.value.status, failure.value.code) == (500, "http_500")
    assert read_by_client(hostile, "endless-error", before) < MAX_ANSWER + SOCKET_BUFFERS


def test_an_answer_or_event_that_is_not_json(hostile: HostileServer) -> None:
    with client(hostile, "not-json") as c, pytest.raises(BadAnswerError) as answer:
        c.get_loop("s", "l")
    assert answer.value.code == "answer_not_json"
    with client(hostile, "event-not-json") as c:
        with pytest.raises(BadAnswerError) as event:
            for _ in c.events("s", retry=False):
                pass
        assert event.value.code == "event_not_json"
        with pytest.raises(BadAnswerError) as loop_event:
            c.wait_for_completion("s", "l", command_id=str(uuid.uuid4()), timeout=5)
        assert loop_event.value.code == "event_not_json"


@pytest.mark.asyncio
async def test_an_answer_or_event_that_is_not_json_async(hostile: HostileServer) -> None:
    async with aclient(hostile, "not-json") as c:
        with pytest.raises(BadAnswerError) as answer:
            await c.get_loop("s", "l")
    assert answer.value.code == "answer_not_json"
    async with aclient(hostile, "event-not-json") as c:
        with pytest.raises(BadAnswerError) as event:
            async for _ in c.events("s", retry=False):
                pass
        assert event.value.code == "event_not_json"
        with pytest.raises(BadAnswerError) as loop_event:
            await c.wait_for_completion("s", "l", command_id=str(uuid.uuid4()), timeout=5)
        assert loop_event.value.code == "event_not_json"

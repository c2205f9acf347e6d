"""LoopWorker and AsyncLoopWorker (issue 46) against the real server: what the handlers were
given, what was consumed and what was left pending, read back from the server; a worker process
SIGKILLed between a handler's return and its consume's commit."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

from process_notifications import (
    AsyncClient,
    AsyncLoopWorker,
    Client,
    LoopWorker,
    LoopWorkerError,
    PendingNotification,
)

from conftest import Loop
from holding_proxy import SwallowingProxy
from support import ServerProcess, completed_record, notification

CHILD = Path(__file__).with_name("loop_worker_child.py")
SRC = Path(__file__).resolve().parents[1] / "src"


def deliver_finished(client: Client, loop: Loop, count: int, exit_code: Callable[[int], int] = lambda _: 0) -> list[dict[str, Any]]:
    """``count`` notifications of the loop, each with its outcome (record first, as pn-supervise sends them)."""
    runs = []
    for i in range(count):
        run = notification(loop.session_id, loop.loop_id)
        client.publish_lifecycle(completed_record(run, exit_code(i)))
        client.deliver_completion(run)
        runs.append(run)
    return runs


def ids(items: list[dict[str, Any]]) -> list[str]:
    return sorted(item["command_id"] for item in items)


def pending_ids(client: Client, loop: Loop) -> list[str]:
    return sorted(n.command_id for n in client.pending_notifications(loop.session_id, loop.loop_id))


def eventually(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    until = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < until, f"timed out waiting for {what}"
        time.sleep(0.02)


async def aeventually(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    until = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < until, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def check_successes_consumed(client: Client, loop: Loop, runs: list[dict[str, Any]], late: dict[str, Any],
                             handled: list[PendingNotification], errors: list[LoopWorkerError]) -> None:
    # Each once, with its outcome; every failure reported, nothing else.
    assert sorted(n.command_id for n in handled) == ids([*runs, late])
    assert all(n.outcome is not None for n in handled)
    failing = [run for i, run in enumerate(runs) if i % 3 == 0]
    assert sorted(e.notification.command_id for e in errors) == ids(failing)
    assert {e.code for e in errors} == {"handler_failed"}
    assert all(isinstance(e.__cause__, RuntimeError) for e in errors)
    # What the server holds: exactly the failures pending, the others consumed.
    assert pending_ids(client, loop) == ids(failing)


def test_sync_consumes_exactly_the_successes_and_leaves_a_failure_pending(client: Client, loop: Loop) -> None:
    runs = deliver_finished(client, loop, 12, lambda i: 1 if i % 3 == 0 else 0)
    late = notification(loop.session_id, loop.loop_id)  # its outcome comes after it
    client.deliver_completion(late)
    handled: list[PendingNotification] = []
    errors: list[LoopWorkerError] = []
    lock = threading.Lock()

    def handle(n: PendingNotification) -> None:
        with lock:
            handled.append(n)
        if n.outcome is not None and n.outcome.exit_code == 1:
            raise RuntimeError(f"exit code 1 of {n.command_id}")

    worker = LoopWorker(client, loop.session_id, loop.loop_id, handle, concurrency=3, wait_for_outcome=True, on_error=errors.append)
    running = threading.Thread(target=worker.run)
    running.start()
    eventually(lambda: len(handled) >= 12, "12 handled")
    assert late["command_id"] not in [n.command_id for n in handled]
    client.publish_lifecycle(completed_record(late, 0))
    eventually(lambda: len(handled) >= 13, "the late one handled")
    worker.close()
    running.join()
    check_successes_consumed(client, loop, runs, late, handled, errors)


@pytest.mark.asyncio
async def test_async_consumes_exactly_the_successes_and_leaves_a_failure_pending(client: Client, aclient: AsyncClient, loop: Loop) -> None:
    runs = deliver_finished(client, loop, 12, lambda i: 1 if i % 3 == 0 else 0)
    late = notification(loop.session_id, loop.loop_id)
    client.deliver_completion(late)
    handled: list[PendingNotification] = []
    errors: list[LoopWorkerError] = []

    async def handle(n: PendingNotification) -> None:
        handled.append(n)
        await asyncio.sleep(0)
        if n.outcome is not None and n.outcome.exit_code == 1:
            raise RuntimeError(f"exit code 1 of {n.command_id}")

    worker = AsyncLoopWorker(aclient, loop.session_id, loop.loop_id, handle, concurrency=3, wait_for_outcome=True, on_error=errors.append)
    running = asyncio.ensure_future(worker.run())
    await aeventually(lambda: len(handled) >= 12, "12 handled")
    await aclient.publish_lifecycle(completed_record(late, 0))
    await aeventually(lambda: len(handled) >= 13, "the late one handled")
    await worker.close()
    await running
    check_successes_consumed(client, loop, runs, late, handled, errors)


def test_sync_hands_out_at_once_by_default_also_without_a_record(client: Client, loop: Loop) -> None:
    runs = deliver_finished(client, loop, 3, lambda i: 0)
    bare = notification(loop.session_id, loop.loop_id)  # its supervisor sends no record
    client.deliver_completion(bare)
    late = notification(loop.session_id, loop.loop_id)  # its record comes after it
    handled: list[PendingNotification] = []
    lock = threading.Lock()
    released = threading.Event()

    def handle(n: PendingNotification) -> None:
        with lock:
            handled.append(n)
        if n.command_id == late["command_id"]:
            released.wait(20)  # held until its outcome update has reached the worker

    worker = LoopWorker(client, loop.session_id, loop.loop_id, handle, concurrency=2, on_error=lambda e: handled.append(e.notification))
    running = threading.Thread(target=worker.run)
    running.start()
    eventually(lambda: len(handled) >= 4, "4 handled")
    client.deliver_completion(late)
    eventually(lambda: len(handled) >= 5, "the late one handed out")
    client.publish_lifecycle(completed_record(late, 0))
    last = notification(loop.session_id, loop.loop_id)  # given after the late one's outcome update
    client.deliver_completion(last)
    eventually(lambda: len(handled) >= 6, "the last one handed out")
    released.set()
    worker.close()
    running.join()
    assert sorted(n.command_id for n in handled) == ids([*runs, bare, late, last])
    assert sorted(n.command_id for n in handled if n.outcome is None) == ids([bare, late, last])
    assert pending_ids(client, loop) == []


@pytest.mark.asyncio
async def test_async_hands_out_at_once_by_default_also_without_a_record(client: Client, aclient: AsyncClient, loop: Loop) -> None:
    runs = deliver_finished(client, loop, 3, lambda i: 0)
    bare = notification(loop.session_id, loop.loop_id)
    client.deliver_completion(bare)
    late = notification(loop.session_id, loop.loop_id)
    handled: list[PendingNotification] = []
    released = asyncio.Event()

    async def handle(n: PendingNotification) -> None:
        handled.append(n)
        if n.command_id == late["command_id"]:
            await released.wait()

    worker = AsyncLoopWorker(aclient, loop.session_id, loop.loop_id, handle, concurrency=2, on_error=lambda e: handled.append(e.notification))
    running = asyncio.ensure_future(worker.run())
    await aeventually(lambda: len(handled) >= 4, "4 handled")
    await aclient.deliver_completion(late)
    await aeventually(lambda: len(handled) >= 5, "the late one handed out")
    await aclient.publish_lifecycle(completed_record(late, 0))
    last = notification(loop.session_id, loop.loop_id)
    await aclient.deliver_completion(last)
    await aeventually(lambda: len(handled) >= 6, "the last one handed out")
    released.set()
    await worker.close()
    await running
    assert sorted(n.command_id for n in handled) == ids([*runs, bare, late, last])
    assert sorted(n.command_id for n in handled if n.outcome is None) == ids([bare, late, last])
    assert pending_ids(client, loop) == []


def test_sync_runs_at_most_concurrency_handlers_and_reaches_it(client: Client, loop: Loop) -> None:
    runs = deliver_finished(client, loop, 10)
    lock = threading.Lock()
    gates: list[threading.Event] = []
    active = most = 0

    def handle(_n: PendingNotification) -> None:
        nonlocal active, most
        gate = threading.Event()
        with lock:
            gates.append(gate)
            active += 1
            most = max(most, active)
        gate.wait(60)
        with lock:
            active -= 1

    worker = LoopWorker(client, loop.session_id, loop.loop_id, handle, concurrency=3)
    running = threading.Thread(target=worker.run)
    running.start()
    # Release one handler at a time, each only once the worker filled every slot it may.
    for finished in range(len(runs)):
        expected = min(len(runs), finished + 3)
        eventually(lambda: len(gates) >= expected, f"{expected} started")
        assert len(gates) == expected
        gates[finished].set()
    worker.close()
    running.join()
    assert most == 3
    assert pending_ids(client, loop) == []


@pytest.mark.asyncio
async def test_async_runs_at_most_concurrency_handlers_and_reaches_it(client: Client, aclient: AsyncClient, loop: Loop) -> None:
    runs = deliver_finished(client, loop, 10)
    gates: list[asyncio.Event] = []
    active = most = 0

    async def handle(_n: PendingNotification) -> None:
        nonlocal active, most
        gate = asyncio.Event()
        gates.append(gate)
        active += 1
        most = max(most, active)
        await gate.wait()
        active -= 1

    worker = AsyncLoopWorker(aclient, loop.session_id, loop.loop_id, handle, concurrency=3)
    running = asyncio.ensure_future(worker.run())
    for finished in range(len(runs)):
        expected = min(len(runs), finished + 3)
        await aeventually(lambda: len(gates) >= expected, f"{expected} started")
        assert len(gates) == expected
        gates[finished].set()
    await worker.close()
    await running
    assert most == 3
    assert pending_ids(client, loop) == []


@pytest.mark.asyncio
async def test_async_hands_out_the_next_while_the_previous_consume_has_not_committed(
    server: ServerProcess, client: Client, loop: Loop
) -> None:
    first, second = deliver_finished(client, loop, 2)
    proxy = SwallowingProxy(server.port, b"/consume")
    pending_when_second_ran: list[list[str]] = []

    async def handle(n: PendingNotification) -> None:
        if n.command_id == second["command_id"]:
            # The first one's consume is on its way, held: this handler did not wait for it.
            assert await asyncio.to_thread(proxy.swallowed.wait, 60)
            pending_when_second_ran.append(await asyncio.to_thread(pending_ids, client, loop))

    try:
        async with AsyncClient(f"http://127.0.0.1:{proxy.port}", loop.token) as through_proxy:
            worker = AsyncLoopWorker(through_proxy, loop.session_id, loop.loop_id, handle)
            running = asyncio.ensure_future(worker.run())
            await aeventually(lambda: len(pending_when_second_ran) == 1, "the second handled")
            assert first["command_id"] in pending_when_second_ran[0]
            proxy.release()
            await worker.close()
            await running
    finally:
        proxy.close()
    # close() waited for both consumes, the held one included.
    assert pending_ids(client, loop) == []


def test_sync_close_waits_for_the_handlers_running_and_their_consumes(client: Client, loop: Loop) -> None:
    runs = deliver_finished(client, loop, 5)
    release = threading.Event()
    started: list[str] = []
    seen_stopping: list[bool] = []
    worker: LoopWorker

    def handle(n: PendingNotification) -> None:
        started.append(n.command_id)
        release.wait(60)
        seen_stopping.append(worker.stopping)

    worker = LoopWorker(client, loop.session_id, loop.loop_id, handle, concurrency=2)
    running = threading.Thread(target=worker.run)
    running.start()
    eventually(lambda: len(started) == 2, "two started")
    closing = threading.Thread(target=worker.close)
    closing.start()
    # Both handlers are still running: nothing consumed, close() not returned.
    assert pending_ids(client, loop) == ids(runs)
    assert closing.is_alive()
    release.set()
    closing.join(60)
    assert not closing.is_alive()
    # Returned after the two consumes committed; the three never started stay pending.
    assert pending_ids(client, loop) == sorted(i for i in ids(runs) if i not in started)
    assert len(started) == 2 and seen_stopping == [True, True]
    running.join()


@pytest.mark.asyncio
@pytest.mark.parametrize("how", ["close", "cancel"])
async def test_async_stopping_waits_for_the_handlers_running_and_their_consumes(
    client: Client, aclient: AsyncClient, loop: Loop, how: str
) -> None:
    runs = deliver_finished(client, loop, 5)
    release = asyncio.Event()
    started: list[str] = []

    async def handle(n: PendingNotification) -> None:
        started.append(n.command_id)
        await release.wait()

    worker = AsyncLoopWorker(aclient, loop.session_id, loop.loop_id, handle, concurrency=2)
    running = asyncio.ensure_future(worker.run())
    await aeventually(lambda: len(started) == 2, "two started")
    stopping: Awaitable[None] = worker.close() if how == "close" else asyncio.sleep(0)
    stopped = asyncio.ensure_future(stopping)
    if how == "cancel":
        running.cancel()  # cancelling the run's task stops it the same way
    for _ in range(20):
        await asyncio.sleep(0)
    assert not running.done() and (how == "cancel" or not stopped.done())
    assert pending_ids(client, loop) == ids(runs)
    release.set()
    await stopped
    if how == "cancel":
        with pytest.raises(asyncio.CancelledError):
            await running
    else:
        await running
    assert pending_ids(client, loop) == sorted(i for i in ids(runs) if i not in started)
    assert len(started) == 2


def child_lines(child: subprocess.Popen[str]) -> tuple[list[dict[str, Any]], threading.Thread]:
    """The child's JSON lines, as they come (read in a thread)."""
    lines: list[dict[str, Any]] = []

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.append(json.loads(line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return lines, reader


def start_child(mode: str, url: str, loop: Loop) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PYTHONPATH": f"{SRC}{os.pathsep}{CHILD.parent}",
        "PN_SERVER_URL": url,
        "PN_TOKEN": loop.token,
        "PN_SESSION_ID": loop.session_id,
        "PN_LOOP_ID": loop.loop_id,
    }
    return subprocess.Popen([sys.executable, str(CHILD), mode], env=env, stdout=subprocess.PIPE, text=True)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_sigkill_between_a_handler_returning_and_its_consume_committing_gives_it_again(
    server: ServerProcess, client: Client, loop: Loop, mode: str
) -> None:
    runs = deliver_finished(client, loop, 3)
    # The first consume request never reaches the server: the process dies with it on its way.
    proxy = SwallowingProxy(server.port, b"/consume")
    first = start_child(mode, f"http://127.0.0.1:{proxy.port}", loop)
    try:
        first_lines, first_reader = child_lines(first)
        assert proxy.swallowed.wait(60), "no consume was sent"
        first.kill()
        first.wait()
        first_reader.join(10)
    finally:
        proxy.close()
        if first.poll() is None:
            first.kill()
    handled_first = [line["handled"] for line in first_lines if "handled" in line]
    assert handled_first, "the first worker handled nothing"
    # It was told nothing was consumed, and nothing was.
    assert pending_ids(client, loop) == ids(runs)

    second = start_child(mode, server.url, loop)
    try:
        second_lines, second_reader = child_lines(second)
        eventually(lambda: pending_ids(client, loop) == [], "all consumed")
        second.terminate()
        assert second.wait(60) == 0
        second_reader.join(10)
    finally:
        if second.poll() is None:
            second.kill()
    # Given again (at least once), each once by this run; none lost.
    assert sorted(line["handled"] for line in second_lines if "handled" in line) == ids(runs)
    assert set(handled_first) <= set(ids(runs))
    assert {"closed": True} in second_lines

"""Fixtures: the real server on a temporary SQLite file, a session and a native loop of its own
for every test, and clients of both kinds."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from types import FrameType
from pathlib import Path
from typing import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from process_notifications import AsyncClient, Client

from support import ADMIN_TOKEN, ServerProcess


class Hung(Exception):
    """A test ran past its watchdog: it failed by hanging."""


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    """Fails a test that hangs (a wait that never ends) instead of stalling the run: SIGALRM
    interrupts whatever the main thread blocks on."""

    def expired(_signal: int, _frame: FrameType | None) -> None:
        raise Hung("the test ran for more than 240 s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(240)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the tests that do not stop it; each test opens its own session."""
    process = ServerProcess(tmp_path_factory.mktemp("server") / "pn.db")
    yield process
    process.stop()


@dataclass(frozen=True)
class Loop:
    """A session of its own, its token and a native loop in it."""

    session_id: str
    token: str
    loop_id: str


@pytest.fixture
def loop(server: ServerProcess) -> Iterator[Loop]:
    with Client(server.url, ADMIN_TOKEN) as admin:
        session = admin.create_session()
        opened = admin.open_loop(session.session_id)
    yield Loop(session.session_id, session.token, opened.loop_id)


@pytest.fixture
def client(server: ServerProcess, loop: Loop) -> Iterator[Client]:
    """A client with the loop's session token."""
    with Client(server.url, loop.token) as session_client:
        yield session_client


@pytest_asyncio.fixture
async def aclient(server: ServerProcess, loop: Loop) -> AsyncIterator[AsyncClient]:
    """An async client with the loop's session token."""
    async with AsyncClient(server.url, loop.token) as session_client:
        yield session_client


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "pn.db"

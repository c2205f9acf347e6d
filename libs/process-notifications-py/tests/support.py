"""The real server (``node dist/src/main.js``, built by ``npm run build``) as a child process on a
temporary SQLite file, for the tests. No mock stands in for it."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import uuid
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[3]
SERVER_MAIN = REPO / "dist" / "src" / "main.js"
SUPERVISOR_MAIN = REPO / "libs" / "pn-supervise" / "dist" / "main.js"
ADMIN_TOKEN = "python-client-tests-admin-token-0123456789"


def node() -> str:
    found = os.environ.get("PN_NODE") or shutil.which("node")
    if not found:
        raise RuntimeError("node is not on PATH (or set PN_NODE)")
    return found


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServerProcess:
    """The built server on ``database`` (a SQLite file), on ``port`` (its own choice when 0)."""

    def __init__(self, database: Path, port: int = 0, env: dict[str, str] | None = None) -> None:
        if not SERVER_MAIN.exists():
            raise RuntimeError(f"{SERVER_MAIN} is missing: run `npm run build` first")
        self.output = ""
        self._child = subprocess.Popen(
            [node(), str(SERVER_MAIN)],
            cwd=REPO,
            env={
                **os.environ,
                "PORT": str(port),
                "PN_DATABASE_URL": f"sqlite:{database}",
                "PN_ADMIN_TOKEN": ADMIN_TOKEN,
                "NO_COLOR": "1",
                **(env or {}),
            },
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self._child.stdout is not None
        listening = None
        for line in self._child.stdout:
            self.output += line
            listening = re.search(r"Listening on port (\d+)", line)
            if listening:
                break
        if listening is None:
            self._child.wait()
            raise RuntimeError(f"the server exited ({self._child.returncode}) before listening:\n{self.output}")
        self.port = int(listening.group(1))
        self.url = f"http://127.0.0.1:{self.port}"
        # Keep draining its output, so that it never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self._child.stdout is not None
        for line in self._child.stdout:
            self.output += line

    def kill(self) -> None:
        """Ends it at once (SIGKILL), as a crash would, and waits for it."""
        if self._child.poll() is None:
            self._child.send_signal(signal.SIGKILL)
        self._child.wait()

    def stop(self) -> None:
        if self._child.poll() is None:
            self._child.terminate()
            try:
                self._child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def notification(session_id: str, loop_id: str, **fields: Any) -> dict[str, Any]:
    """A completion notification with a fresh command id (exited/exited unless told otherwise)."""
    return {
        "command_id": str(uuid.uuid4()),
        "session_id": session_id,
        "loop_id": loop_id,
        "process_handle": "make-test",
        "state": "exited",
        "reason": "exited",
        **fields,
    }


def completed_record(completion: dict[str, Any], exit_code: int = 0) -> dict[str, Any]:
    """The ``completed`` lifecycle record of the run ``completion`` reports, naming its command id."""
    return {
        "event_id": str(uuid.uuid4()),
        "kind": "completed",
        "session_id": completion["session_id"],
        "loop_id": completion["loop_id"],
        "process_handle": completion["process_handle"],
        "origin_execution_id": str(uuid.uuid4()),
        "state": "exited",
        "reason": "exited",
        "process_created_at": "2026-01-01T00:00:00Z",
        "process_started_at": "2026-01-01T00:00:01Z",
        "process_finished_at": "2026-01-01T00:00:02Z",
        "has_exit_code": True,
        "exit_code": exit_code,
        "command_id": completion["command_id"],
    }


def signalled_record(completion: dict[str, Any], state: str = "killed", signal: str = "SIGSEGV") -> dict[str, Any]:
    """The ``completed`` record of a run the signal ``signal`` ended (state and reason ``state``),
    naming its command id."""
    record = completed_record(completion)
    del record["has_exit_code"], record["exit_code"]
    return {**record, "state": state, "reason": state, "signal": signal}


class RequestLog:
    """The paths of the HTTP requests a client sends, from an ``httpx`` request event hook on its
    connection pool: what the real server was asked, counted on the way out."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    def sync_hook(self, request: httpx.Request) -> None:
        self.paths.append(request.url.path)

    async def async_hook(self, request: httpx.Request) -> None:
        self.paths.append(request.url.path)

    def watch(self, http: httpx.Client | httpx.AsyncClient) -> RequestLog:
        """Hooks onto ``http`` (a client's ``_http``); returns itself."""
        if isinstance(http, httpx.AsyncClient):
            http.event_hooks = {"request": [self.async_hook], "response": []}
        else:
            http.event_hooks = {"request": [self.sync_hook], "response": []}
        return self

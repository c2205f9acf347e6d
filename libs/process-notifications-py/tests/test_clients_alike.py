"""Where the hand-written sync and async clients had drifted apart (issue 49), both now do what
the TypeScript client does; client.py is generated from async_client.py, so they stay alike."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

from process_notifications import AsyncClient, Client, CompletionTimeoutError, ProblemError

PROBLEM = b'{"type":"about:blank","title":"x","status":503,"code":"journal_unavailable","detail":"down"}'


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.startswith("/ended/"):
            # A loop stream the server answers and ends at once.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_response(503)
            self.send_header("Content-Type", "application/problem+json")
            self.send_header("Content-Length", str(len(PROBLEM)))
            self.end_headers()
            self.wfile.write(PROBLEM)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_wait_on_a_stream_the_server_ended_without_retries_raises_at_once(server: str) -> None:
    # It was a CompletionTimeoutError "within 5 s" at once from the sync client.
    started = time.monotonic()
    with Client(f"{server}/ended") as client, pytest.raises(RuntimeError, match="stream ended") as raised:
        client.wait_for_completion("s", "l", command_id="c", timeout=5, retry=False)
    assert not isinstance(raised.value, CompletionTimeoutError)
    assert time.monotonic() - started < 4


@pytest.mark.asyncio
async def test_a_wait_on_a_stream_the_server_ended_without_retries_raises_at_once_async(server: str) -> None:
    started = time.monotonic()
    async with AsyncClient(f"{server}/ended") as client:
        with pytest.raises(RuntimeError, match="stream ended"):
            await client.wait_for_completion("s", "l", command_id="c", timeout=5, retry=False)
    assert time.monotonic() - started < 4


def test_completions_with_a_deadline_raise_a_failure_they_do_not_retry(server: str) -> None:
    # The sync client ended quietly instead, as if the deadline had passed.
    with Client(f"{server}/failing") as client, pytest.raises(ProblemError) as raised:
        list(client.completions("s", "l", deadline=5, retry=False))
    assert raised.value.status == 503


@pytest.mark.asyncio
async def test_completions_with_a_deadline_raise_a_failure_they_do_not_retry_async(server: str) -> None:
    async with AsyncClient(f"{server}/failing") as client:
        with pytest.raises(ProblemError) as raised:
            [item async for item in client.completions("s", "l", deadline=5, retry=False)]
    assert raised.value.status == 503

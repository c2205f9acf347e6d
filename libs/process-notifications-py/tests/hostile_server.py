"""A hostile or broken API server (issue 45), for the tests of what the clients take: each answer
kind misbehaves in one way. It counts the bytes the client took (what the socket accepted), so a
test checks how much a client read rather than its memory."""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections import Counter
from typing import Literal

HostileAnswer = Literal[
    "endless",  # 200 and a JSON-looking body that never ends
    "trickle",  # 200 and one byte of body every TRICKLE seconds, for ever
    "trickle-then-silence",
    "trickle-headers",  # the status line and headers, one byte every TRICKLE seconds, for ever  # 200, one byte every TRICKLE seconds for SILENCE_AFTER seconds, then nothing
    "endless-error",  # 500 and a body that never ends
    "not-json",  # 200 and <html>
    "endless-line",  # an event stream whose one data line never ends
    "endless-event",  # an event stream of data lines never ended by a blank line
    "event-not-json",  # an event stream whose event is not JSON
]

TRICKLE = 0.1
SILENCE_AFTER = 0.9
_CHUNK = b"x" * 65536


class HostileServer:
    """On 127.0.0.1, a port of its own; a client's base URL is :meth:`url_of` an answer kind."""

    def __init__(self) -> None:
        self.sent: Counter[str] = Counter()
        hostile = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                hostile._answer(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def url_of(self, answer: HostileAnswer) -> str:
        return f"http://127.0.0.1:{self.port}/{answer}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, connection: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            got = connection.recv(65536)
            if not got:
                return
            head += got
        answer = head.split(b" ", 2)[1].decode().split("/")[1]
        json_head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
        stream_head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
        try:
            if answer == "endless":
                self._pump(connection, answer, json_head + b'{"status":"', _CHUNK)
            elif answer == "endless-error":
                self._pump(connection, answer, b"HTTP/1.1 500 Internal Server Error\r\n\r\n", _CHUNK)
            elif answer in ("trickle", "trickle-then-silence"):
                connection.sendall(json_head)
                started = time.monotonic()
                while answer == "trickle" or time.monotonic() - started < SILENCE_AFTER:
                    connection.sendall(b" ")
                    self.sent[answer] += 1
                    time.sleep(TRICKLE)
                connection.recv(1)  # silent until the client goes
            elif answer == "trickle-headers":
                for byte in b"HTTP/1.1 200 OK\r\nX-Padding: " + b"x" * 1_000_000:
                    connection.sendall(bytes([byte]))
                    self.sent[answer] += 1
                    time.sleep(TRICKLE)
            elif answer == "not-json":
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n<html>")
            elif answer == "endless-line":
                self._pump(connection, answer, stream_head + b"data: ", _CHUNK)
            elif answer == "endless-event":
                self._pump(connection, answer, stream_head, (b"data: " + b"x" * 1017 + b"\n") * 64)
            elif answer == "event-not-json":
                connection.sendall(stream_head + b'id: 1\nevent: notification\ndata: {"command_id":\n\n')
                connection.recv(1)
        except OSError:
            pass  # The client went: that is the point.

    def _pump(self, connection: socket.socket, answer: str, head: bytes, chunk: bytes) -> None:
        # As fast as the client reads: sendall blocks while the socket's buffers are full.
        connection.sendall(head)
        while True:
            connection.sendall(chunk)
            self.sent[answer] += len(chunk)

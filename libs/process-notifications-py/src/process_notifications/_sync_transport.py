"""What the synchronous client does its own way (the rest of :mod:`.client` is written by
``scripts/generate_sync.py`` from :mod:`.async_client`): a thread cannot be cancelled, so an
attempt is bounded by cutting its connection (:class:`_Watchdog`), and the deadline of an
iteration or a wait is handed to the stream, which bounds its reads by it and ends there.
:mod:`._async_transport` has the same functions, bounded by cancelling."""

from __future__ import annotations

import socket
import threading
from typing import Any, Callable, Generator, TypeVar

import httpx

from ._base import TRANSPORT_ERRORS, BaseClient, Call, attempt_clock
from .errors import BadAnswerError, NetworkError
from .retry import RetryPolicy

T = TypeVar("T")


class _Watchdog:
    """Cuts an attempt's connection (shuts its socket down) once ``seconds`` have passed, unless
    cancelled first: httpx bounds each sync read by the timeout the request began with, not by
    the time left, so a server sending a byte now and then would hold the call for ever.

    It learns the socket from the ``trace`` extension when the attempt opens a connection (so the
    status line and headers are bounded too), and from the answer's ``network_stream`` extension
    (a pooled connection's, whose status line and headers are bounded by each read's timeout)."""

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._done = False
        self._socket: socket.socket | None = None
        self.expired = False
        """Whether the time ran out: what was read then is not the whole answer."""
        self._timer = threading.Timer(max(0.0, seconds), self._expire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's ``trace`` extension: a new connection (TCP, then TLS over it) is watched."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self._watch(info.get("return_value"))

    def watch(self, response: httpx.Response) -> None:
        """Watches the connection the answer came on."""
        self._watch(response.extensions.get("network_stream"))

    def _watch(self, stream: Any) -> None:
        found = None if stream is None else stream.get_extra_info("socket")
        if not isinstance(found, socket.socket):
            return
        with self._lock:
            self._socket = found
        if self.expired:
            self._cut()

    def _expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
        self._cut()

    def _cut(self) -> None:
        with self._lock:
            if self._done or self._socket is None:
                return
            try:
                self._socket.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # Closed meanwhile: nothing to cut.

    def cancel(self) -> None:
        """The attempt ended: the connection is left as it is (back in the pool, if whole)."""
        with self._lock:
            self._done = True
        self._timer.cancel()


def exchange(
    client: BaseClient, http: httpx.Client, call: Call[T], url: str, headers: dict[str, str], timeout: float
) -> tuple[httpx.Response, str]:
    """One attempt: the answer and its whole body as text, at most ``max_answer_bytes`` (else
    :class:`BadAnswerError`), all within ``timeout`` seconds (else :class:`NetworkError`)."""
    # The whole exchange, not each read: a server trickling bytes holds it no longer.
    ends = attempt_clock() + timeout
    watchdog = _Watchdog(timeout)
    try:
        with http.stream(
            call.method, url, content=call.body, headers=headers, timeout=timeout, extensions={"trace": watchdog.trace}
        ) as response:
            text = _read(client, response, ends, watchdog)
    except TRANSPORT_ERRORS as error:
        late = watchdog.expired or attempt_clock() >= ends
        raise (client._late() if late else client._network_error(error)) from error
    finally:
        watchdog.cancel()
    return response, text


def _read(client: BaseClient, response: httpx.Response, ends: float, watchdog: _Watchdog) -> str:
    """The answer's whole body as text: at most ``max_answer_bytes``, by ``ends`` (on
    :func:`attempt_clock`'s clock), else :class:`BadAnswerError` or :class:`NetworkError`.
    ``watchdog`` cuts the connection at ``ends``, so a read blocked then returns at once."""
    watchdog.watch(response)
    client._declared_too_large(response)
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        client._took_chunk(response, size, ends)
        chunks.append(chunk)
    # A body that ends with the connection ends early when the watchdog cuts it: not an answer.
    if watchdog.expired:
        raise client._late()
    return b"".join(chunks).decode("utf-8", "replace")


def error_text(client: BaseClient, response: httpx.Response) -> str:
    """An error answer of a stream, bounded as every answer is; one too large (or too slow)
    to read is judged by its status alone."""
    watchdog = _Watchdog(client.request_timeout)
    try:
        return _read(client, response, attempt_clock() + client.request_timeout, watchdog)
    except (BadAnswerError, NetworkError):
        return ""
    finally:
        watchdog.cancel()


def within(
    deadline: float | None, clock: RetryPolicy, items: Callable[[float | None], Generator[T, None, None]]
) -> Generator[T, None, None]:
    """``items`` until ``deadline`` seconds have passed, then the iteration ends quietly: the
    iterator is opened with the deadline as a time on ``clock`` (``items(until)``), and ends there."""
    return items(None if deadline is None else clock.now() + deadline)


def wait_within(timeout: float | None, clock: RetryPolicy, wait: Callable[[float | None], T | None]) -> T | None:
    """What ``wait(until)`` returns, ``until`` being ``timeout`` seconds from now on ``clock``
    (``None``: no bound); it returns ``None`` when the time ran out."""
    return wait(None if timeout is None else clock.now() + timeout)

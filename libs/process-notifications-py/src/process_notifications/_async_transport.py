"""What the asynchronous client does its own way (the rest of :mod:`.async_client` is shared
with :mod:`.client`, which ``scripts/generate_sync.py`` writes from it): an attempt, and the
waits of the deadlines, are bounded by cancelling them (``asyncio.wait_for``).
:mod:`._sync_transport` has the same functions, bounded as a thread can be: by cutting the
connection, and by threading the deadline through the stream's reads."""

from __future__ import annotations

import asyncio
import math
from contextlib import aclosing
from typing import AsyncGenerator, Awaitable, Callable, TypeVar

import httpx

from ._base import TRANSPORT_ERRORS, BaseClient, Call
from .errors import BadAnswerError
from .retry import RetryPolicy

T = TypeVar("T")


async def exchange(
    client: BaseClient, http: httpx.AsyncClient, call: Call[T], url: str, headers: dict[str, str], timeout: float
) -> tuple[httpx.Response, str]:
    """One attempt: the answer and its whole body as text, at most ``max_answer_bytes`` (else
    :class:`BadAnswerError`), all within ``timeout`` seconds (else :class:`NetworkError`)."""
    try:
        # The whole exchange, not each read: a server trickling bytes holds it no longer.
        return await asyncio.wait_for(_exchange(client, http, call, url, headers, timeout), timeout)
    except asyncio.TimeoutError as error:
        raise client._late() from error
    except TRANSPORT_ERRORS as error:
        raise client._network_error(error) from error


async def _exchange(
    client: BaseClient, http: httpx.AsyncClient, call: Call[T], url: str, headers: dict[str, str], timeout: float
) -> tuple[httpx.Response, str]:
    async with http.stream(call.method, url, content=call.body, headers=headers, timeout=timeout) as response:
        return response, await _read(client, response)


async def _read(client: BaseClient, response: httpx.Response) -> str:
    client._declared_too_large(response)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        # No time bound here: the caller's wait_for is the attempt's.
        client._took_chunk(response, size, math.inf)
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


async def error_text(client: BaseClient, response: httpx.Response) -> str:
    """An error answer of a stream, bounded as every answer is; one too large to read, or too
    slow, is judged by its status alone."""
    try:
        return await asyncio.wait_for(_read(client, response), client.request_timeout)
    except (BadAnswerError, asyncio.TimeoutError):
        return ""


def within(
    deadline: float | None, clock: RetryPolicy, items: Callable[[float | None], AsyncGenerator[T, None]]
) -> AsyncGenerator[T, None]:
    """``items`` until ``deadline`` seconds have passed, then the iteration ends quietly; the
    iterator is opened without a deadline of its own (``items(None)``): cancelling bounds it."""
    opened = items(None)
    return opened if deadline is None else _until(opened, deadline)


async def wait_within(
    timeout: float | None, clock: RetryPolicy, wait: Callable[[float | None], Awaitable[T | None]]
) -> T | None:
    """What ``wait(None)`` returns within ``timeout`` seconds (``None``: no bound), or ``None``
    when the time ran out (it is cancelled then)."""
    try:
        return await asyncio.wait_for(wait(None), timeout)
    except asyncio.TimeoutError:
        return None


async def _until(items: AsyncGenerator[T, None], deadline: float) -> AsyncGenerator[T, None]:
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    async with aclosing(items) as source:
        while True:
            remaining = end - loop.time()
            if remaining <= 0:
                return
            try:
                item = await asyncio.wait_for(source.__anext__(), remaining)
            except (StopAsyncIteration, asyncio.TimeoutError):
                return
            yield item

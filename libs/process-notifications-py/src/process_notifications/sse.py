"""An incremental ``text/event-stream`` parser (the WHATWG event stream interpretation)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import BadAnswerError

_LINE_END = re.compile(r"\r\n|\r|\n")

DEFAULT_MAX_EVENT_BYTES = 1024 * 1024
"""Default ``max_event_bytes``: 1 MiB (an event carries one journal record: about 17 KiB at most).
The TypeScript client's ``DEFAULT_MAX_EVENT_BYTES`` is the same."""


def _utf8_length(text: str) -> int:
    # Without a copy per character; a lone surrogate (which no decoder of ours makes) counts one byte.
    return len(text.encode("utf-8", "replace"))


@dataclass(frozen=True)
class ServerSentEvent:
    """One dispatched server-sent event."""

    id: str | None
    """The last event id seen on the stream (``id:`` field), as the SSE standard keeps it."""
    event: str
    data: str


class SseDecoder:
    """Feed it decoded text as it arrives (any chunking: a line, its end or a CRLF may be split
    across chunks); it returns the events completed so far. It splits lines itself, so it
    takes text whether or not a line iterator kept the line endings.

    It holds at most ``max_event_bytes`` (UTF-8) of one event: the data lines of the event being
    read and the line not ended yet. Past that, :meth:`push` raises :class:`BadAnswerError`
    ``event_too_large``, so a stream that never ends a line or an event cannot exhaust memory."""

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self.max_event_bytes = max_event_bytes
        self._buffer = ""
        # UTF-8 bytes of the buffer, and of the data lines held (each with its line end).
        self._buffer_bytes = 0
        self._data_bytes = 0
        self._data: list[str] = []
        self._event_type = ""
        self._last_event_id: str | None = None
        # A chunk that ended in CR may be the first half of a CRLF.
        self._pending_cr = False

    def push(self, text: str) -> list[ServerSentEvent]:
        chunk = text
        if self._pending_cr and chunk.startswith("\n"):
            chunk = chunk[1:]
        self._pending_cr = False
        self._buffer += chunk
        self._buffer_bytes += _utf8_length(chunk)
        events: list[ServerSentEvent] = []
        while True:
            match = _LINE_END.search(self._buffer)
            if match is None:
                break
            # A lone CR at the very end could still become CRLF: the next chunk says.
            if match.group() == "\r" and match.start() == len(self._buffer) - 1:
                self._pending_cr = True
            line = self._buffer[: match.start()]
            self._buffer = self._buffer[match.end() :]
            self._buffer_bytes -= _utf8_length(line) + len(match.group())
            event = self._line(line)
            if event is not None:
                events.append(event)
        self._check()
        return events

    def _check(self) -> None:
        if self._buffer_bytes + self._data_bytes > self.max_event_bytes:
            # Nothing more of this stream is read: what it held goes.
            self._buffer, self._data = "", []
            self._buffer_bytes = self._data_bytes = 0
            raise BadAnswerError.event_too_large(self.max_event_bytes)

    def _line(self, line: str) -> ServerSentEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, colon, value = line.partition(":")
        if not colon:
            value = ""
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
            self._data_bytes += _utf8_length(value) + 1
            # The rest of the chunk is not this event's yet: the line not ended is checked at the end.
            if self._data_bytes > self.max_event_bytes:
                self._check()
        elif field == "event":
            self._event_type = value
        elif field == "id" and "\0" not in value:
            self._last_event_id = value
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        data, event = self._data, self._event_type or "message"
        self._data = []
        self._data_bytes = 0
        self._event_type = ""
        if not data:
            return None
        return ServerSentEvent(id=self._last_event_id, event=event, data="\n".join(data))

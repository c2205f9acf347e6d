"""An incremental ``text/event-stream`` parser (the WHATWG event stream interpretation)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_END = re.compile(r"\r\n|\r|\n")


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
    takes text whether or not a line iterator kept the line endings."""

    def __init__(self) -> None:
        self._buffer = ""
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
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

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
        elif field == "event":
            self._event_type = value
        elif field == "id" and "\0" not in value:
            self._last_event_id = value
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        data, event = self._data, self._event_type or "message"
        self._data = []
        self._event_type = ""
        if not data:
            return None
        return ServerSentEvent(id=self._last_event_id, event=event, data="\n".join(data))

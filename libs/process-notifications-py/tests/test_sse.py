"""The SSE decoder, on its own: any chunking, any line ending (httpx 0.23's ``iter_lines()``
keeps a line's ending, so text may come with or without it)."""

from __future__ import annotations

import pytest

from process_notifications import BadAnswerError, ServerSentEvent, SseDecoder

STREAM = 'id: 1\ndata: {"sequence":1}\n\n: keep-alive\n\nid: 2\ndata: {"sequence":2}\n\n'
EXPECTED = [
    ServerSentEvent(id="1", event="message", data='{"sequence":1}'),
    ServerSentEvent(id="2", event="message", data='{"sequence":2}'),
]


def decode(chunks: list[str]) -> list[ServerSentEvent]:
    decoder = SseDecoder()
    return [event for chunk in chunks for event in decoder.push(chunk)]


def test_one_chunk() -> None:
    assert decode([STREAM]) == EXPECTED


def test_every_split_of_the_stream() -> None:
    for at in range(len(STREAM) + 1):
        assert decode([STREAM[:at], STREAM[at:]]) == EXPECTED, at


def test_one_character_at_a_time_with_every_line_ending() -> None:
    for ending in ("\r\n", "\r", "\n"):
        text = STREAM.replace("\n", ending)
        assert decode(list(text)) == EXPECTED, repr(ending)


def test_lines_with_their_endings_as_iter_lines_yields_them() -> None:
    lines = STREAM.replace("\n", "\r\n").splitlines(keepends=True)
    assert decode(lines) == EXPECTED


def test_a_crlf_split_between_chunks_is_one_line_end() -> None:
    assert decode(["data: a\r", "\ndata: b\r", "\n\r", "\n"]) == [ServerSentEvent(id=None, event="message", data="a\nb")]


def test_fields_as_the_standard_reads_them() -> None:
    events = decode(["event: record\ndata\ndata:no-space\nid: 7\0x\nretry: 5\nunknown: x\n\n", "data: after\n\n"])
    assert events == [
        ServerSentEvent(id=None, event="record", data="\nno-space"),
        ServerSentEvent(id=None, event="message", data="after"),
    ]


def test_the_last_event_id_is_kept_and_an_event_without_data_is_not_dispatched() -> None:
    assert decode(["id: 3\n\n", "data: x\n\n", "id\ndata: y\n\n"]) == [
        ServerSentEvent(id="3", event="message", data="x"),
        ServerSentEvent(id="", event="message", data="y"),
    ]


def test_an_unfinished_event_waits() -> None:
    decoder = SseDecoder()
    assert decoder.push("data: x\n") == []
    assert decoder.push("\n") == [ServerSentEvent(id=None, event="message", data="x")]


def test_a_line_that_never_ends_fails_past_max_event_bytes_counting_utf8_bytes() -> None:
    decoder = SseDecoder(100)
    # 30 three-byte characters: 90 bytes.
    assert decoder.push("data: " + "€" * 30) == []
    with pytest.raises(BadAnswerError) as failure:
        decoder.push("€" * 2)
    assert failure.value.code == "event_too_large"


def test_data_lines_never_ended_by_a_blank_line_fail_and_events_up_to_the_bound_pass() -> None:
    decoder = SseDecoder(100)
    # Data of 10 bytes, each held with its line end: 9 lines are 99 bytes, a 10th passes the bound.
    assert len(decoder.push("data: 0123456789\n" * 9 + "\n")) == 1
    assert decoder.push("data: 0123456789\n" * 9) == []
    with pytest.raises(BadAnswerError):
        decoder.push("data: 0123456789\n")


def test_the_bound_counts_only_what_is_held() -> None:
    # Comments, ids, events already dispatched and the rest of a chunk are not one event's.
    stream = [f": keep-alive {'-' * 50}\nid: {i}\ndata: {i}\n\n" for i in range(50)]
    decoder = SseDecoder(100)
    assert len([event for text in stream for event in decoder.push(text)]) == 50
    assert len(SseDecoder(100).push("".join(stream))) == 50

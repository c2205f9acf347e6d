import { BadAnswerError } from './bad-answer.error.js';
import { SseDecoder } from './sse-decoder.js';

// Expectations from the WHATWG "interpreting an event stream" rules.
describe('SseDecoder', () => {
  it('dispatches on a blank line, joins data lines, keeps the last id', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('id: 7\ndata: {"a":\ndata: 1}\n\n')).toEqual([{ id: '7', event: 'message', data: '{"a":\n1}' }]);
    expect(decoder.push('data: x\n\n')).toEqual([{ id: '7', event: 'message', data: 'x' }]);
  });

  it('handles events split anywhere across chunks, and CRLF split between chunks', () => {
    const decoder = new SseDecoder();
    const text = 'id: 1\r\ndata: one\r\n\r\n: comment\r\nid: 2\rdata: two\r\r';
    const events = [...text].flatMap((char) => decoder.push(char));
    expect(events).toEqual([
      { id: '1', event: 'message', data: 'one' },
      { id: '2', event: 'message', data: 'two' },
    ]);
  });

  it('ignores comments, unknown fields and blocks without data', () => {
    const decoder = new SseDecoder();
    expect(decoder.push(':keep-alive\n\nretry: 10\nfoo: bar\n\nevent: x\n\n')).toEqual([]);
    expect(decoder.push('event: custom\ndata\n\n')).toEqual([{ id: undefined, event: 'custom', data: '' }]);
  });

  describe('holds at most maxEventBytes of one event (issue 45)', () => {
    const tooLarge = (push: () => unknown): unknown => {
      try {
        push();
      } catch (error) {
        return error;
      }
      return undefined;
    };

    it('fails a line that never ends once it is past the bound, counting UTF-8 bytes', () => {
      const decoder = new SseDecoder(100);
      // 30 three-byte characters: 90 bytes, 30 UTF-16 units.
      expect(decoder.push(`data: ${'€'.repeat(30)}`)).toEqual([]);
      const error = tooLarge(() => decoder.push('€'.repeat(2)));
      expect(error).toBeInstanceOf(BadAnswerError);
      expect(error).toMatchObject({ code: 'event_too_large' });
    });

    it('fails an event whose data lines never end with a blank line, and passes events up to the bound', () => {
      const decoder = new SseDecoder(100);
      // Data of 10 bytes, each held with its line end: 9 lines are 99 bytes, a 10th passes the bound.
      expect(decoder.push('data: 0123456789\n'.repeat(9) + '\n')).toHaveLength(1);
      expect(decoder.push('data: 0123456789\n'.repeat(9))).toEqual([]);
      expect(tooLarge(() => decoder.push('data: 0123456789\n'))).toMatchObject({ code: 'event_too_large' });
    });

    it('does not count what it does not hold: comments, ids, events already dispatched, the chunk after the line', () => {
      const stream = [...Array(50).keys()].map((i) => `: keep-alive ${'-'.repeat(50)}\nid: ${i}\ndata: ${i}\n\n`);
      const decoder = new SseDecoder(100);
      expect(stream.flatMap((text) => decoder.push(text))).toHaveLength(50);
      // All in one chunk, 50 times the bound: each event is within it.
      expect(new SseDecoder(100).push(stream.join(''))).toHaveLength(50);
    });
  });
});

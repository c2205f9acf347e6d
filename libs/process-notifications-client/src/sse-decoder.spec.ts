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
});

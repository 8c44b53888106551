// The console's Server-Sent Events parser: the same events however the bytes are cut into chunks (fast-check),
// heartbeats as their own kind, CRLF line ends, multi-line data.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseParser } from '../src/sse-parser.ts';

const STREAM = ':\n\nevent: next\ndata: {"data":{"a":1}}\n\n: heartbeat\n\nevent: next\r\ndata: line one\r\ndata: line two\r\n\r\nevent: complete\ndata:\n\n';
const EXPECTED = [
  { event: 'heartbeat', data: '' },
  { event: 'next', data: '{"data":{"a":1}}' },
  { event: 'heartbeat', data: '' },
  { event: 'next', data: 'line one\nline two' },
  { event: 'complete', data: '' },
];

describe('SseParser', () => {
  it('reads events, heartbeats, CRLF and multi-line data', () => {
    expect(new SseParser().push(STREAM)).toEqual(EXPECTED);
  });

  it('gives the same events for any cutting of the stream into chunks', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: STREAM.length - 1 }), { maxLength: 20 }), (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), STREAM.length];
        const parser = new SseParser();
        const events = points.slice(1).flatMap((end, i) => parser.push(STREAM.slice(points[i], end)));
        expect(events).toEqual(EXPECTED);
      }),
    );
  });

  it('keeps an unfinished event for the next chunk', () => {
    const parser = new SseParser();
    expect(parser.push('event: next\ndata: {}')).toEqual([]);
    expect(parser.push('\n\n')).toEqual([{ event: 'next', data: '{}' }]);
  });
});

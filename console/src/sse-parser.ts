// Server-Sent Events as text chunks arrive: complete events out, the unfinished tail kept for the next chunk.
// Comment lines (`:`, the server's heartbeats) are events of their own kind, so a reader can tell the stream is alive.

export interface SseEvent {
  /** `message` when the event named none; `heartbeat` for a comment. */
  readonly event: string;
  readonly data: string;
}

export class SseParser {
  private buffer = '';
  /** A chunk ending in CR: it may be the first half of a CRLF. */
  private carriageReturn = false;

  /** Feeds a chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    let text = (this.carriageReturn ? '\r' : '') + chunk;
    this.carriageReturn = text.endsWith('\r');
    if (this.carriageReturn) text = text.slice(0, -1);
    this.buffer += text.replace(/\r\n?/g, '\n');
    const events: SseEvent[] = [];
    let end = this.buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event = parseBlock(block);
      if (event !== null) events.push(event);
      end = this.buffer.indexOf('\n\n');
    }
    return events;
  }
}

function parseBlock(block: string): SseEvent | null {
  let event = 'message';
  const data: string[] = [];
  let comment = false;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      comment = true;
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return comment ? { event: 'heartbeat', data: '' } : event === 'complete' ? { event, data: '' } : null;
  return { event, data: data.join('\n') };
}

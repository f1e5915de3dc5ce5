// A minimal server-sent-events reader over fetch, for the listen tests: yields {event, data} frames.
export interface SseFrame {
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  next(): Promise<SseFrame>;
  close(): void;
}

export async function openSse(url: string, token: string): Promise<SseStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    status: response.status,
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n').filter((line) => !line.startsWith(':'));
          if (lines.length === 0) continue;
          const field = (name: string) => lines.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2)).join('\n');
          return { event: field('event') || 'message', data: field('data') };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += value;
      }
    },
    close() {
      abort.abort();
    },
  };
}

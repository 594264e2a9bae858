import fc from 'fast-check';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError, isGone } from '../api-errors.js';
import { plainConnection } from './kube-connection.js';
import { kubeWatch } from './kube-watch.js';

/** A watch request the server holds open: the test writes its answer. */
interface HeldWatch {
  url: URL;
  headers: IncomingHttpHeaders;
  response: ServerResponse<IncomingMessage>;
  /** Resolves when the connection of this request has closed. */
  closed: Promise<void>;
}

/** A local API server stand-in whose watch requests the test answers itself. */
async function startWatchServer(): Promise<{
  url: string;
  next: () => Promise<HeldWatch>;
  close: () => Promise<void>;
}> {
  const held: HeldWatch[] = [];
  const waiting: ((watch: HeldWatch) => void)[] = [];
  const server: Server = createServer((request, response) => {
    const watch: HeldWatch = {
      url: new URL(request.url ?? '', 'http://stand-in'),
      headers: request.headers,
      response,
      closed: new Promise((resolve) => response.on('close', resolve)),
    };
    const taker = waiting.shift();
    if (taker === undefined) held.push(watch);
    else taker(watch);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    next: () => {
      const first = held.shift();
      return first === undefined
        ? new Promise((resolve) => waiting.push(resolve))
        : Promise.resolve(first);
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** What one watch reported, with a way to wait until it has reported enough. */
function recorder() {
  const events: [type: string, object: unknown][] = [];
  const watchObjects: unknown[] = [];
  const ends: unknown[] = [];
  let wake: (() => void) | undefined;
  return {
    events,
    watchObjects,
    ends,
    callback: (type: string, object: unknown, watchObject?: unknown) => {
      events.push([type, object]);
      watchObjects.push(watchObject);
      wake?.();
    },
    done: (error: unknown) => {
      ends.push(error);
      wake?.();
    },
    async until(condition: () => boolean): Promise<void> {
      while (!condition())
        await new Promise<void>((resolve) => (wake = resolve));
    },
  };
}

/** Lets the I/O callbacks already due run (e.g. a response's `close` after its `end`). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const pod = (name: string, resourceVersion: string) => ({
  kind: 'Pod',
  metadata: { name, namespace: 'ns', resourceVersion },
});
const line = (type: string, object: unknown) =>
  `${JSON.stringify({ type, object })}\n`;

const PODS = '/api/v1/namespaces/ns/pods';

describe('kubeWatch', () => {
  let server: Awaited<ReturnType<typeof startWatchServer>>;

  beforeEach(async () => {
    server = await startWatchServer();
  });
  afterEach(() => server.close());

  /** Starts a watch and answers it with `status` (headers only, so far). */
  async function startWatch(
    status = 200,
    queryParams: Record<string, string | number | boolean | undefined> = {},
  ) {
    const seen = recorder();
    const started = kubeWatch(plainConnection(server.url)).watch(
      PODS,
      queryParams,
      seen.callback,
      seen.done,
    );
    const held = await server.next();
    held.response.writeHead(status, { 'content-type': 'application/json' });
    held.response.flushHeaders();
    const { abort } = await started;
    return { seen, held, abort };
  }

  it('delivers several events of one chunk in order, with type and object, skipping blank lines', async () => {
    const { seen, held } = await startWatch();
    held.response.write(
      line('ADDED', pod('a', '1')) +
        line('MODIFIED', pod('a', '2')) +
        '\n' +
        line('DELETED', pod('a', '3')),
    );
    await seen.until(() => seen.events.length === 3);
    expect(seen.events).toEqual([
      ['ADDED', pod('a', '1')],
      ['MODIFIED', pod('a', '2')],
      ['DELETED', pod('a', '3')],
    ]);
    expect(seen.watchObjects[2]).toEqual({
      type: 'DELETED',
      object: pod('a', '3'),
    });
    expect(seen.ends).toEqual([]);
  });

  it('delivers an event split across chunks once its line is complete', async () => {
    const { seen, held } = await startWatch();
    const second = line('MODIFIED', pod('straße-€', '2'));
    const bytes = Buffer.from(second);
    // Cut inside the multi-byte "€", so the halves are not valid UTF-8 on their own.
    const cut = bytes.indexOf(Buffer.from('€')) + 1;
    held.response.write(
      Buffer.concat([
        Buffer.from(line('ADDED', pod('a', '1'))),
        bytes.subarray(0, cut),
      ]),
    );
    // The first event arriving proves the half line was read too.
    await seen.until(() => seen.events.length === 1);
    held.response.write(bytes.subarray(cut));
    await seen.until(() => seen.events.length === 2);
    expect(seen.events).toEqual([
      ['ADDED', pod('a', '1')],
      ['MODIFIED', pod('straße-€', '2')],
    ]);
  });

  it('delivers the same events wherever the stream is cut into chunks', async () => {
    const event = fc.record({
      type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'),
      object: fc.record({
        metadata: fc.record({
          name: fc.string({ unit: 'grapheme', maxLength: 12 }),
          resourceVersion: fc.nat().map(String),
        }),
      }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { minLength: 1, maxLength: 6 }),
        fc.uniqueArray(fc.nat(), { maxLength: 8 }),
        async (events, cuts) => {
          const { seen, held } = await startWatch();
          const bytes = Buffer.from(
            events.map((one) => line(one.type, one.object)).join(''),
          );
          const ends = [
            ...new Set(cuts.map((cut) => cut % bytes.length)),
            bytes.length,
          ].sort((a, b) => a - b);
          let start = 0;
          for (const end of ends) {
            held.response.write(bytes.subarray(start, end));
            start = end;
            await settle();
          }
          held.response.end();
          await seen.until(() => seen.ends.length > 0);
          expect(seen.events).toEqual(
            events.map((one) => [one.type, one.object]),
          );
          expect(seen.ends).toEqual([null]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('calls done(null) once when the server ends the stream', async () => {
    const { seen, held } = await startWatch();
    held.response.end(line('ADDED', pod('a', '1')));
    await seen.until(() => seen.ends.length > 0);
    await held.closed;
    await settle();
    expect(seen.events).toEqual([['ADDED', pod('a', '1')]]);
    expect(seen.ends).toEqual([null]);
  });

  it('hands ERROR events in the stream to the callback, as the API server reports an expired watch', async () => {
    const expired = {
      kind: 'Status',
      status: 'Failure',
      message: 'too old resource version: 1 (5)',
      reason: 'Expired',
      code: 410,
    };
    const { seen, held } = await startWatch();
    held.response.end(line('ERROR', expired));
    await seen.until(() => seen.ends.length > 0);
    expect(seen.events).toEqual([['ERROR', expired]]);
    expect(seen.ends).toEqual([null]);
  });

  it('reports a refused watch once, with its HTTP status as code and the Status message', async () => {
    const gone = {
      kind: 'Status',
      status: 'Failure',
      message: 'too old resource version: 1 (5)',
      reason: 'Gone',
      code: 410,
    };
    const { seen, held } = await startWatch(410, { resourceVersion: '1' });
    held.response.end(JSON.stringify(gone));
    await seen.until(() => seen.ends.length > 0);
    await held.closed;
    await settle();
    expect(seen.events).toEqual([]);
    expect(seen.ends).toHaveLength(1);
    const [error] = seen.ends;
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: 410,
      body: JSON.stringify(gone),
      message: `GET ${PODS}?watch=true&resourceVersion=1: too old resource version: 1 (5)`,
    });
    expect(isGone(error)).toBe(true);
  });

  it('reports a refusal without a Status body by its HTTP status', async () => {
    const { seen, held } = await startWatch(403);
    held.response.end();
    await seen.until(() => seen.ends.length > 0);
    expect(describeError(seen.ends[0])).toBe(
      `HTTP 403: GET ${PODS}?watch=true: HTTP 403`,
    );
  });

  it('ends with an error at a line that is not JSON, delivering nothing after it, and drops the connection', async () => {
    const { seen, held } = await startWatch();
    held.response.write(
      line('ADDED', pod('a', '1')) +
        'not json\n' +
        line('ADDED', pod('b', '1')),
    );
    await held.closed;
    await seen.until(() => seen.ends.length > 0);
    await settle();
    expect(seen.events).toEqual([['ADDED', pod('a', '1')]]);
    expect(seen.ends).toEqual([
      new Error(`watch ${PODS}: an event is not JSON`),
    ]);
  });

  it('ends with an error at a JSON line that is not an event', async () => {
    const { seen, held } = await startWatch();
    held.response.write('{"object":{}}\n');
    await seen.until(() => seen.ends.length > 0);
    expect(seen.events).toEqual([]);
    expect(seen.ends).toEqual([
      new Error(`watch ${PODS}: an event is not JSON`),
    ]);
  });

  it('ends with an error at a line that is JSON null, without throwing', async () => {
    const { seen, held } = await startWatch();
    held.response.write('null\n');
    await seen.until(() => seen.ends.length > 0);
    expect(seen.events).toEqual([]);
    expect(seen.ends).toEqual([
      new Error(`watch ${PODS}: an event is not JSON`),
    ]);
  });

  it('delivers a last event the stream ends without a newline', async () => {
    const { seen, held } = await startWatch();
    held.response.end(JSON.stringify({ type: 'ADDED', object: pod('a', '1') }));
    await seen.until(() => seen.ends.length > 0);
    expect(seen.events).toEqual([['ADDED', pod('a', '1')]]);
    expect(seen.ends).toEqual([null]);
  });

  it('reports a connection broken mid-stream once, as an ECONNRESET error', async () => {
    const { seen, held } = await startWatch();
    held.response.write(line('ADDED', pod('a', '1')));
    await seen.until(() => seen.events.length === 1);
    held.response.socket?.destroy();
    await seen.until(() => seen.ends.length > 0);
    await settle();
    expect(seen.ends).toHaveLength(1);
    expect(seen.ends[0]).toMatchObject({ code: 'ECONNRESET' });
  });

  it('reports nothing more after abort(), and closes the connection', async () => {
    const { seen, held, abort } = await startWatch();
    held.response.write(line('ADDED', pod('a', '1')));
    await seen.until(() => seen.events.length === 1);
    abort();
    await held.closed;
    await settle();
    expect(seen.events).toHaveLength(1);
    expect(seen.ends).toEqual([]);
  });

  it('sends watch=true and the defined query parameters, under the server path prefix', async () => {
    const seen = recorder();
    const started = kubeWatch(plainConnection(`${server.url}/proxy/`)).watch(
      PODS,
      {
        resourceVersion: '42',
        allowWatchBookmarks: true,
        timeoutSeconds: 25,
        labelSelector: 'app=web,tier in (a,b)',
        fieldSelector: undefined,
      },
      seen.callback,
      seen.done,
    );
    const held = await server.next();
    held.response.end();
    await started;
    expect(held.url.pathname).toBe(`/proxy${PODS}`);
    expect(Object.fromEntries(held.url.searchParams)).toEqual({
      watch: 'true',
      resourceVersion: '42',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '25',
      labelSelector: 'app=web,tier in (a,b)',
    });
    expect(held.headers['accept']).toBe('application/json');
  });

  it('rejects, without calling done, when the server cannot be reached', async () => {
    const { url } = server;
    await server.close();
    const seen = recorder();
    await expect(
      kubeWatch(plainConnection(url)).watch(PODS, {}, seen.callback, seen.done),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(seen.ends).toEqual([]);
  });
});

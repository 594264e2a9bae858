import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** What each request of a load sends, and how it connects. */
export interface LoadRequest {
  url: string;
  /** `POST` (the default) sends `body`; `GET` sends none. */
  method?: 'GET' | 'POST';
  body?: string;
  headers: Record<string, string>;
  /** CA bundle the server's certificate chains to; none for an `http:` URL. */
  ca?: string;
  /** A client certificate and its key (PEM), for a server that authenticates the peer. */
  cert?: string;
  key?: string;
  /** Keep-alive connections the load may open. */
  connections: number;
}

/**
 * How one request ended: the answer's status code (with its body when the pool keeps
 * bodies), or the error that ended its connection.
 */
export type Outcome =
  | { status: number; body?: Buffer }
  | { status?: undefined; error: Error };

/** Called once per `send`, with the tag given there. */
export type OnOutcome = (tag: number, outcome: Outcome) => void;

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * The same HTTP/1.1 request sent over and over on at most `connections` keep-alive
 * connections: the request's bytes are built once, each answer is framed by its
 * `Content-Length` and dropped unless `keepBodies`. A load generator that shares the cores
 * with the server it measures should cost as little as it can: `node:http`'s client and
 * undici's `Pool` spend about twice this per request on objects a benchmark never reads
 * (docs/decisions/0039-lean-load-generator.md). Requests wait in order of `send` for a
 * free connection; a connection the server closed while idle is dropped and another opened
 * when one is needed. Answers without a `Content-Length` (chunked) end with an error: the
 * servers measured here all send one.
 */
export class RepeatedRequest {
  private readonly bytes: Buffer;
  private readonly idle: Connection[] = [];
  private readonly waiting: number[] = [];
  private waitingHead = 0;
  private open = 0;
  private closed = false;

  constructor(
    private readonly request: LoadRequest,
    private readonly onOutcome: OnOutcome,
    private readonly keepBodies = false,
  ) {
    this.bytes = requestBytes(request);
  }

  /** Sends the request once, now if a connection is free, else when one is. */
  send(tag: number): void {
    this.waiting.push(tag);
    this.dispatch();
  }

  /** Closes every connection; requests still waiting or in flight get no outcome. */
  close(): void {
    this.closed = true;
    for (const connection of this.idle) connection.socket.destroy();
    this.idle.length = 0;
  }

  private dispatch(): void {
    while (this.waitingHead < this.waiting.length) {
      const connection = this.idle.pop();
      if (connection === undefined) break;
      connection.send(this.nextWaiting());
    }
    if (this.waitingHead === this.waiting.length) {
      this.waiting.length = 0;
      this.waitingHead = 0;
    } else if (this.open < this.request.connections && !this.closed) {
      this.connect();
    }
  }

  private nextWaiting(): number {
    return this.waiting[this.waitingHead++] ?? -1;
  }

  private connect(): void {
    this.open += 1;
    const connection = new Connection(
      this.request,
      this.bytes,
      this.keepBodies,
      {
        ready: () => {
          if (this.closed) connection.socket.destroy();
          else this.release(connection);
        },
        answered: (tag, status, body, reusable) => {
          this.onOutcome(tag, this.keepBodies ? { status, body } : { status });
          if (this.closed) connection.socket.destroy();
          else if (reusable) this.release(connection);
        },
        ended: (tag, error, connected) => {
          this.open -= 1;
          const index = this.idle.indexOf(connection);
          if (index >= 0) this.idle.splice(index, 1);
          // A request in flight fails with its connection; a connection that never opened
          // fails the first waiting request, so a server that refuses every connection
          // ends the load instead of being dialled forever.
          if (tag >= 0) this.onOutcome(tag, { error });
          else if (!connected && this.waitingHead < this.waiting.length)
            this.onOutcome(this.nextWaiting(), { error });
          if (!this.closed) this.dispatch();
        },
      },
    );
  }

  private release(connection: Connection): void {
    this.idle.push(connection);
    this.dispatch();
  }
}

interface ConnectionEvents {
  ready(): void;
  /** `reusable` is false when the server asked to close the connection after it. */
  answered(tag: number, status: number, body: Buffer, reusable: boolean): void;
  /** `tag` is the request in flight, -1 when none; `connected` whether it ever opened. */
  ended(tag: number, error: Error, connected: boolean): void;
}

const NO_BODY = Buffer.alloc(0);

/** One keep-alive connection with at most one request in flight. */
class Connection {
  readonly socket: Socket;
  private tag = -1;
  private connected = false;
  /** What arrived of the answer in flight: the head until it is read, then the body kept. */
  private chunks: Buffer[] = [];
  private received = 0;
  /** Bytes of the whole answer once its head is read; -1 before. */
  private answerBytes = -1;
  private bodyOffset = 0;
  private status = 0;
  private closeAfter = false;

  constructor(
    request: LoadRequest,
    private readonly bytes: Buffer,
    private readonly keepBodies: boolean,
    private readonly events: ConnectionEvents,
  ) {
    const url = new URL(request.url);
    const port = Number(url.port) || (url.protocol === 'http:' ? 80 : 443);
    // An IPv6 literal comes bracketed in a URL, and without brackets to a socket.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const onConnect = () => {
      this.connected = true;
      events.ready();
    };
    this.socket =
      url.protocol === 'http:'
        ? tcpConnect({ host, port }, onConnect)
        : tlsConnect(
            {
              host,
              port,
              ca: request.ca,
              cert: request.cert,
              key: request.key,
            },
            onConnect,
          );
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    let failure: Error | undefined;
    this.socket.on('error', (error) => (failure = error));
    this.socket.on('close', () => {
      const tag = this.tag;
      this.tag = -1;
      events.ended(
        tag,
        failure ?? new Error('the server closed the connection'),
        this.connected,
      );
    });
  }

  send(tag: number): void {
    this.tag = tag;
    this.socket.write(this.bytes);
  }

  private read(chunk: Buffer): void {
    if (this.tag < 0) {
      this.fail(`${chunk.length} bytes arrived with no request in flight`);
      return;
    }
    this.received += chunk.length;
    if (this.answerBytes < 0) {
      this.chunks.push(chunk);
      if (!this.readHead()) return;
    } else if (this.keepBodies) this.chunks.push(chunk);
    if (this.received < this.answerBytes) return;
    if (this.received > this.answerBytes) {
      this.fail('the answer ran past its Content-Length');
      return;
    }
    const body = this.keepBodies
      ? Buffer.concat(this.chunks).subarray(this.bodyOffset)
      : NO_BODY;
    const tag = this.tag;
    this.tag = -1;
    this.chunks = [];
    this.received = 0;
    this.answerBytes = -1;
    if (this.closeAfter) this.socket.end();
    this.events.answered(tag, this.status, body, !this.closeAfter);
  }

  /** Reads the status line and headers once they are all in; false while they are not. */
  private readHead(): boolean {
    const received = Buffer.concat(this.chunks);
    this.chunks = [received];
    const end = received.indexOf(HEADER_END);
    if (end < 0) return false;
    const head = received.toString('latin1', 0, end);
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
    if (status === undefined || length === undefined) {
      this.fail(
        `an answer without a status line or a Content-Length (this client reads no chunked answers): ${head.slice(0, 200)}`,
      );
      return false;
    }
    this.status = Number(status);
    this.bodyOffset = end + HEADER_END.length;
    this.answerBytes = this.bodyOffset + Number(length);
    this.closeAfter = /\r\nconnection: *close/i.test(head);
    if (!this.keepBodies) this.chunks = [];
    return true;
  }

  private fail(message: string): void {
    this.socket.destroy(new Error(message));
  }
}

/** The request's bytes: request line, Host, the given headers, Content-Length and body. */
function requestBytes(request: LoadRequest): Buffer {
  const url = new URL(request.url);
  const method = request.method ?? 'POST';
  const body = Buffer.from(method === 'GET' ? '' : (request.body ?? ''));
  const lines = [
    `${method} ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    ...Object.entries(request.headers).map(
      ([name, value]) => `${name}: ${value}`,
    ),
    ...(method === 'GET' ? [] : [`Content-Length: ${body.length}`]),
  ];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]);
}

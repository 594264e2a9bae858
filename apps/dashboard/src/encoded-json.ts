import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';

const gzipInThreadPool = promisify(gzip);

export interface EncodedJson {
  readonly identity: Buffer;
  readonly gzip: Buffer;
}

let last: { text: string; encoded: EncodedJson } | undefined;

const GZIP = { level: 1 };

/**
 * A JSON body as bytes, plain and gzipped, for the text the dashboard last answered with:
 * `/api/workloads` is megabytes written once a sample, and encoding it for each request
 * cost some 20 ms of CPU (2,000 workloads), serialised behind one another under load. The
 * sampling loop encodes it once a sample (`encodeJson`), so requests only write bytes.
 * gzip's fastest level still shrinks the repetitive JSON some fifty-fold, which counts
 * through `kubectl port-forward`.
 */
export function encodedJson(text: string): EncodedJson {
  if (last?.text !== text) {
    const identity = Buffer.from(text, 'utf8');
    last = {
      text,
      encoded: { identity, gzip: gzipSync(identity, { level: 1 }) },
    };
  }
  return last.encoded;
}

/** `encodedJson`'s bytes, compressed on libuv's thread pool: the sampling loop's way. */
export async function encodeJson(text: string): Promise<EncodedJson> {
  if (last?.text === text) return last.encoded;
  const identity = Buffer.from(text, 'utf8');
  const encoded = { identity, gzip: await gzipInThreadPool(identity, GZIP) };
  last = { text, encoded };
  return encoded;
}

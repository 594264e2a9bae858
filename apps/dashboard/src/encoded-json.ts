import { gzipSync } from 'node:zlib';

export interface EncodedJson {
  readonly identity: Buffer;
  readonly gzip: Buffer;
}

let last: { text: string; encoded: EncodedJson } | undefined;

/**
 * A JSON body as bytes, plain and gzipped, for the text the dashboard last answered with:
 * `/api/workloads` is megabytes written once a sample, and encoding it for each request
 * cost some 20 ms of CPU (2,000 workloads), serialised behind one another under load. The
 * sampling loop calls this once a sample, so requests only write bytes. gzip's fastest
 * level still shrinks the repetitive JSON about tenfold, which counts through
 * `kubectl port-forward`.
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

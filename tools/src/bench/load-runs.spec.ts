import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedLoopRuns, fixedRateRuns } from './load-runs.js';

/** Answers 200, or the status `?status=N` asks for. */
const server: Server = createServer((request, response) => {
  const status = Number(
    new URL(request.url ?? '/', 'http://x').searchParams.get('status') ?? 200,
  );
  response.writeHead(status, { 'content-length': 2 });
  response.end('ok');
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const request = { method: 'GET', headers: {}, connections: 2 } as const;

describe('fixedRateRuns', () => {
  it('gives the median p50, p99 and server CPU per answer of its runs, with their spread', async () => {
    let cpuMs = 0;
    const runs = await fixedRateRuns(
      { ...request, url: `${base}/`, rate: 100 },
      {
        runs: 3,
        runMs: 100,
        warmUpMs: 50,
        what: 'test server',
        // 10 ms more at each reading: a run of 10 answers reads it twice, 1 ms an answer.
        serverCpuMs: () => (cpuMs += 10),
      },
    );
    for (const figure of [runs.p50, runs.p99, runs.cpu]) {
      expect(figure.spread.runs).toBe(3);
      expect(figure.spread.low).toBeLessThanOrEqual(figure.value);
      expect(figure.value).toBeLessThanOrEqual(figure.spread.high);
    }
    expect(runs.p50.value).toBeLessThanOrEqual(runs.p99.value);
    expect(runs.cpu.value).toBe(1);
  });

  it('fails on a failed request, saying what failed at which rate', async () => {
    await expect(
      fixedRateRuns(
        { ...request, url: `${base}/?status=500`, rate: 50 },
        { runs: 2, runMs: 60, what: 'test server', serverCpuMs: () => 0 },
      ),
    ).rejects.toThrow('3 test server requests failed at 50 requests/s');
  });
});

describe('closedLoopRuns', () => {
  it('gives the median sustained rate of its runs, with their spread', async () => {
    const rate = await closedLoopRuns(
      { ...request, url: `${base}/` },
      { runs: 3, runMs: 100, what: 'test server' },
    );
    expect(rate.spread.runs).toBe(3);
    expect(rate.value).toBeGreaterThan(0);
    expect(rate.spread.low).toBeLessThanOrEqual(rate.value);
  });

  it('fails on a failed request', async () => {
    await expect(
      closedLoopRuns(
        { ...request, url: `${base}/?status=503` },
        { runs: 1, runMs: 50, what: 'test server' },
      ),
    ).rejects.toThrow(
      /^\d+ test server requests failed under the closed-loop load$/,
    );
  });
});

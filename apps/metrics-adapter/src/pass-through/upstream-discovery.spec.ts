import type { UpstreamAnswer, UpstreamGet } from './upstream-client.js';
import { upstreamDiscovery } from './upstream-discovery.js';

const ok = (body: object): UpstreamAnswer => ({
  status: 200,
  contentType: 'application/json',
  body: Buffer.from(JSON.stringify(body)),
});

function setup(answers: (() => Promise<UpstreamAnswer>)[]) {
  const clock = { now: 0 };
  const calls: { path: string; timeoutMs: number }[] = [];
  const errors: string[] = [];
  const get: UpstreamGet = (path, { timeoutMs }) => {
    calls.push({ path, timeoutMs });
    const next = answers.shift();
    if (next === undefined) throw new Error('unexpected call');
    return next();
  };
  const discovery = upstreamDiscovery({
    get,
    now: () => clock.now,
    onError: (message) => errors.push(message),
    ttlMs: 1_000,
  });
  return { clock, calls, errors, discovery };
}

describe('upstreamDiscovery', () => {
  it('reads each version once per TTL with a short timeout, sharing a read in flight', async () => {
    const { clock, calls, discovery } = setup([
      async () => ok({ kind: 'APIResourceList', n: 1 }),
      async () => ok({ kind: 'APIResourceList', n: 2 }),
      async () => ok({ kind: 'APIResourceList', n: 3 }),
    ]);
    const [a, b] = await Promise.all([
      discovery('v1beta2'),
      discovery('v1beta2'),
    ]);
    expect([a, b]).toEqual([
      { kind: 'APIResourceList', n: 1 },
      { kind: 'APIResourceList', n: 1 },
    ]);
    expect(await discovery('v1beta1')).toEqual({
      kind: 'APIResourceList',
      n: 2,
    });
    clock.now = 999;
    expect(await discovery('v1beta2')).toMatchObject({ n: 1 });
    clock.now = 1_000;
    expect(await discovery('v1beta2')).toMatchObject({ n: 3 });
    expect(calls).toEqual([
      { path: '/apis/custom.metrics.k8s.io/v1beta2', timeoutMs: 2_000 },
      { path: '/apis/custom.metrics.k8s.io/v1beta1', timeoutMs: 2_000 },
      { path: '/apis/custom.metrics.k8s.io/v1beta2', timeoutMs: 2_000 },
    ]);
  });

  it('gives undefined for a failure, remembered for the TTL, and says why', async () => {
    const { clock, calls, errors, discovery } = setup([
      () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:443')),
      async () => ({
        status: 503,
        contentType: 'text/plain',
        body: Buffer.from('warming up'),
      }),
      async () => ({ status: 200, contentType: '', body: Buffer.from('{') }),
    ]);
    expect(await discovery('v1beta2')).toBeUndefined();
    expect(await discovery('v1beta2')).toBeUndefined();
    expect(calls).toHaveLength(1);
    clock.now = 1_000;
    expect(await discovery('v1beta2')).toBeUndefined();
    clock.now = 2_000;
    expect(await discovery('v1beta2')).toBeUndefined();
    expect(errors).toEqual([
      expect.stringContaining('ECONNREFUSED'),
      expect.stringContaining('HTTP 503: warming up'),
      expect.stringContaining("listing Tandem's metrics alone"),
    ]);
  });
});

import { cachedUsage, type NamespaceUsage } from './usage-source.js';

const usage = (cpuCores: number): NamespaceUsage =>
  new Map([['web-1', [{ name: 'app', cpuCores, memoryBytes: 1 }]]]);

describe('cachedUsage', () => {
  it('reads each namespace once per ttl, however many requests ask at once', async () => {
    const reads: string[] = [];
    const read = cachedUsage(async (namespace) => {
      reads.push(namespace);
      return usage(0.25);
    }, 60_000);
    const answers = await Promise.all([
      read('shop'),
      read('shop'),
      read('shop'),
      read('other'),
    ]);
    expect(reads).toEqual(['shop', 'other']);
    expect(answers[0]).toBe(answers[1]);
    await read('shop');
    expect(reads).toEqual(['shop', 'other']);
  });

  it('keeps no failure: the next request reads again', async () => {
    let fail = true;
    const read = cachedUsage(async () => {
      if (fail) throw new Error('metrics.k8s.io is unavailable');
      return usage(0.5);
    }, 60_000);
    await expect(read('shop')).rejects.toThrow('metrics.k8s.io is unavailable');
    fail = false;
    expect((await read('shop')).get('web-1')?.[0]?.cpuCores).toBe(0.5);
  });

  it('reads again once the ttl has passed', async () => {
    let reads = 0;
    const read = cachedUsage(async () => usage(++reads), 1);
    await read('shop');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await read('shop')).get('web-1')?.[0]?.cpuCores).toBe(2);
  });
});

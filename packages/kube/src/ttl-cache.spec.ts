import { TtlCache } from './ttl-cache.js';

describe('TtlCache', () => {
  let nowMs = 0;
  const cache = () => new TtlCache<string>(1_000, () => nowMs);
  beforeEach(() => (nowMs = 10_000));

  it('returns a value until its time is up, then nothing', () => {
    const values = cache();
    values.set('a', 'one');
    nowMs += 999;
    expect(values.get('a')).toBe('one');
    nowMs += 1;
    expect(values.get('a')).toBeUndefined();
  });

  it('restarts the time when a value is stored again', () => {
    const values = cache();
    values.set('a', 'one');
    nowMs += 900;
    values.set('a', 'two');
    nowMs += 900;
    expect(values.get('a')).toBe('two');
  });

  it('drops expired entries of other keys when storing', () => {
    const values = cache();
    values.set('old', 'x');
    nowMs += 1_000;
    values.set('new', 'y');
    expect(values.size).toBe(1);
    expect(values.get('new')).toBe('y');
  });
});

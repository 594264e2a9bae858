import { hasLowerTarget, InfeasibleResizes } from './infeasible-resizes.js';
import { entry } from './updater.fixtures.js';

const recommendation = (...entries: ReturnType<typeof entry>[]) => ({
  containerRecommendations: entries,
});

describe('hasLowerTarget (§5.6 InPlace infeasible cache)', () => {
  const last = recommendation(entry('app', { cpu: '2', memory: '2Gi' }));

  it.each([
    ['same', recommendation(entry('app', { cpu: '2', memory: '2Gi' })), false],
    [
      'higher',
      recommendation(entry('app', { cpu: '3', memory: '3Gi' })),
      false,
    ],
    [
      'cpu lower',
      recommendation(entry('app', { cpu: '1999m', memory: '2Gi' })),
      true,
    ],
    [
      'memory lower, cpu higher',
      recommendation(entry('app', { cpu: '3', memory: '1Gi' })),
      true,
    ],
    [
      'equal in another unit',
      recommendation(entry('app', { cpu: '2000m' })),
      false,
    ],
    [
      'only another container',
      recommendation(entry('other', { cpu: '1m' })),
      false,
    ],
    [
      'a resource not tried before',
      recommendation(entry('app', { gpu: '0' })),
      false,
    ],
  ])('%s → %s', (_name, current, lower) => {
    expect(hasLowerTarget(last, current)).toBe(lower);
  });

  it('is false when either side is missing', () => {
    expect(hasLowerTarget(undefined, last)).toBe(false);
    expect(hasLowerTarget(last, undefined)).toBe(false);
  });
});

describe('InfeasibleResizes', () => {
  it('remembers per pod UID and forgets pods that are gone', () => {
    const memory = new InfeasibleResizes();
    const tried = recommendation(entry('app', { cpu: '2' }));
    memory.record('a', tried);
    memory.record('b', tried);
    memory.retainOnly(['b', 'c']);
    expect(memory.lastAttempt('a')).toBeUndefined();
    expect(memory.lastAttempt('b')).toBe(tried);
    expect(memory.size).toBe(1);
  });
});

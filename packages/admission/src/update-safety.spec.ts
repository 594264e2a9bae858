import type { ContainerUpdate } from './container-updates.js';
import { unsafeUpdate } from './update-safety.js';

function update(
  requests: Record<string, string>,
  limits: Record<string, string> = {},
): ContainerUpdate {
  return { index: 2, requests, limits, items: [] };
}

describe('unsafeUpdate', () => {
  const container = {
    name: 'app',
    resources: {
      requests: { cpu: '1', memory: '2Gi' },
      limits: { cpu: '2', memory: '1Gi' },
    },
  };

  it('accepts requests within the limits', () => {
    expect(unsafeUpdate(container, update({ cpu: '2' }))).toBeUndefined();
    expect(
      unsafeUpdate(container, update({ cpu: '3' }, { cpu: '3000m' })),
    ).toBeUndefined();
  });

  it('refuses a request above the limit that stays', () => {
    expect(unsafeUpdate(container, update({ cpu: '2001m' }))).toBe(
      'container 2: cpu request 2001m would exceed its limit 2',
    );
  });

  it('refuses negative values', () => {
    expect(unsafeUpdate(container, update({}, { cpu: '-1m' }))).toBe(
      'container 2: negative cpu limit -1m',
    );
  });

  it('ignores resources the update does not touch (memory is already invalid)', () => {
    expect(unsafeUpdate(container, update({ cpu: '1500m' }))).toBeUndefined();
  });
});

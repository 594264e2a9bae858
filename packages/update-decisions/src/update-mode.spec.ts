import { UpdateMode } from '@tandem/vpa-api';
import { updaterActsOn, updaterStrategy } from './update-mode.js';
import { vpaWith } from './updater.fixtures.js';

describe('update modes (§5.1)', () => {
  it.each([
    ['Off', false],
    ['Initial', false],
    ['Recreate', true],
    ['Auto', true],
    ['InPlaceOrRecreate', true],
    ['InPlace', true],
  ] as const)('the updater acts on %s: %s', (mode, acts) => {
    expect(updaterActsOn(mode)).toBe(acts);
  });

  it.each([
    ['Off', 'none'],
    ['Initial', 'none'],
    ['Recreate', 'evict'],
    ['Auto', 'evict'],
    ['InPlaceOrRecreate', 'resize-in-place-or-evict'],
    ['InPlace', 'resize-in-place-only'],
  ] as const)('%s → %s (InPlace gate on)', (mode, strategy) => {
    expect(updaterStrategy(vpaWith([], { mode }), { InPlace: true })).toBe(
      strategy,
    );
  });

  it('an unset mode is Recreate', () => {
    expect(updaterStrategy(vpaWith([], { noUpdatePolicy: true }))).toBe(
      'evict',
    );
  });

  it('InPlace does nothing without its gate', () => {
    expect(updaterStrategy(vpaWith([], { mode: UpdateMode.InPlace }))).toBe(
      'none',
    );
  });
});

import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import { candidate, vpaWith } from './admission.fixtures.js';
import { chooseVpa, matchingVpas } from './vpa-choice.js';

const labels = { app: 'web', tier: 'front' };
const named = (name: string, created?: string, mode?: 'Off' | 'Initial') =>
  vpaWith(undefined, {
    name,
    ...(created !== undefined && { created }),
    ...(mode && { mode }),
  });
const nameOf = (vpa: VerticalPodAutoscaler | undefined) => vpa?.metadata?.name;

describe('matchingVpas', () => {
  it('keeps candidates whose selector matches, in order', () => {
    const matching = matchingVpas(
      [
        candidate(named('a'), { matchLabels: { app: 'web' } }),
        candidate(named('b'), { matchLabels: { app: 'db' } }),
        candidate(named('c'), {
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['front'] },
          ],
        }),
        candidate(named('d'), {}),
      ],
      labels,
    );
    expect(matching.map(nameOf)).toEqual(['a', 'c', 'd']);
  });

  it('skips unresolved, invalid and unreadable candidates', () => {
    const matching = matchingVpas(
      [
        { vpa: named('unresolved'), selector: undefined },
        candidate(named('invalid'), {
          matchExpressions: [{ key: 'app', operator: 'In', values: [] }],
        }),
        candidate({ metadata: { name: 'no-spec' } } as never, {}),
        null as never,
        candidate(named('ok'), {}),
      ],
      labels,
    );
    expect(matching.map(nameOf)).toEqual(['ok']);
  });
});

describe('chooseVpa', () => {
  it('picks the oldest, then the smallest name', () => {
    const chosen = chooseVpa(
      [
        candidate(named('z', '2024-01-02T00:00:00Z'), {}),
        candidate(named('b', '2024-01-01T00:00:00Z'), {}),
        candidate(named('a', '2024-01-01T00:00:00Z'), {}),
      ],
      labels,
    );
    expect(nameOf(chosen)).toBe('a');
  });

  it('passes over VPAs in update mode Off, however old', () => {
    const chosen = chooseVpa(
      [
        candidate(named('off', '2020-01-01T00:00:00Z', 'Off'), {}),
        candidate(named('initial', '2024-01-01T00:00:00Z', 'Initial'), {}),
      ],
      labels,
    );
    expect(nameOf(chosen)).toBe('initial');
  });

  it('counts a missing or unreadable creation time as oldest (Go zero time)', () => {
    const unset = named('unset');
    delete unset.metadata?.creationTimestamp;
    const chosen = chooseVpa(
      [
        candidate(named('dated', '1999-01-01T00:00:00Z'), {}),
        candidate(named('garbled', 'yesterday'), {}),
        candidate(unset, {}),
      ],
      labels,
    );
    expect(nameOf(chosen)).toBe('garbled');
  });

  it('is undefined when nothing matches or everything is Off', () => {
    expect(chooseVpa([], labels)).toBeUndefined();
    expect(
      chooseVpa([candidate(named('off', undefined, 'Off'), {})], labels),
    ).toBeUndefined();
  });
});

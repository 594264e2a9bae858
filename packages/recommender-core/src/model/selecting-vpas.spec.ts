import fc from 'fast-check';
import type { LabelSelector, Labels } from '@tandem/vpa-api';
import { DEFAULT_STRATEGY_SETTINGS } from './vpa-strategy-state.js';
import { vpaObject } from './model.fixtures.js';
import { SelectingVpas } from './selecting-vpas.js';
import { trackVpa, type TrackedVpa, type VpaTarget } from './tracked-vpa.js';

const NAMESPACES = ['shop', 'bank'];
const KEYS = ['app', 'tier', 'track'];
const VALUES = ['a', 'b', 'c'];

const labels: fc.Arbitrary<Labels> = fc.dictionary(
  fc.constantFrom(...KEYS),
  fc.constantFrom(...VALUES),
);

const selector: fc.Arbitrary<LabelSelector | null> = fc.option(
  fc.record(
    {
      matchLabels: labels,
      matchExpressions: fc.array(
        fc.record({
          key: fc.constantFrom(...KEYS),
          operator: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist'),
          values: fc.subarray(VALUES, { minLength: 1 }),
        }),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: [] },
  ),
  { nil: null },
);

const target: fc.Arbitrary<VpaTarget> = fc.oneof(
  selector.map((s) => ({ selector: s as LabelSelector })),
  fc.constant({ unsupported: 'no such controller' }),
);

function tracked(index: number, namespace: string, on: VpaTarget): TrackedVpa {
  const name = `vpa-${index}`;
  return trackVpa(
    { key: `${namespace}/${name}`, namespace, name },
    vpaObject(name, { namespace }),
    on,
    undefined,
    DEFAULT_STRATEGY_SETTINGS,
  );
}

/** What the index stands for: every VPA of the namespace tested, keys sorted. */
function scanned(vpas: readonly TrackedVpa[], namespace: string, of: Labels) {
  return vpas
    .filter(
      (vpa) => vpa.namespace === namespace && vpa.podSelector?.matches(of),
    )
    .map((vpa) => vpa.key)
    .sort();
}

describe('SelectingVpas', () => {
  it('finds the VPAs a scan of the namespace finds, in key order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...NAMESPACES), target), {
          maxLength: 12,
        }),
        fc.constantFrom(...NAMESPACES),
        labels,
        (specs, namespace, of) => {
          const vpas = specs.map(([ns, on], index) => tracked(index, ns, on));
          expect(new SelectingVpas(vpas).keysSelecting(namespace, of)).toEqual(
            scanned(vpas, namespace, of),
          );
        },
      ),
    );
  });

  it('keys a VPA by its first matchLabels entry, and one without any by none', () => {
    const keyed = tracked(0, 'shop', {
      selector: { matchLabels: { app: 'web', tier: 'front' } },
    });
    const unkeyed = tracked(1, 'shop', {
      selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
    });
    expect(keyed.requiredLabel).toBe('app=web');
    expect(unkeyed.requiredLabel).toBeUndefined();
    const index = new SelectingVpas([keyed, unkeyed]);
    expect(index.keysSelecting('shop', { app: 'web', tier: 'front' })).toEqual([
      'shop/vpa-0',
      'shop/vpa-1',
    ]);
    expect(index.keysSelecting('shop', { app: 'api' })).toEqual(['shop/vpa-1']);
    expect(index.keysSelecting('bank', { app: 'web' })).toEqual([]);
  });
});

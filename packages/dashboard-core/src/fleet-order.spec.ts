import fc from 'fast-check';
import {
  FLEET_SORTS,
  isFleetSort,
  orderFleet,
  replicasSaved,
  type FleetSort,
} from './fleet-order.js';
import type { WorkloadSummary } from './workload-summary.js';

interface Row {
  namespace?: string;
  name?: string;
  kind?: string;
  /** The HPA's current replicas; null: no HPA. */
  current?: number | null;
  native?: number | null;
}

const row = ({
  namespace = 'shop',
  name = 'web',
  kind = 'Deployment',
  current = 4,
  native = 4,
}: Row = {}): WorkloadSummary => ({
  namespace,
  kind,
  name,
  vpa: null,
  hpa:
    current === null
      ? null
      : {
          name: `${name}-hpa`,
          currentReplicas: current,
          desiredReplicas: current,
          minReplicas: 1,
          maxReplicas: 50,
          metric: null,
        },
  nativeEquivalentReplicas: native,
  nativeEquivalentReason: native === null ? 'unknown' : null,
  pods: current ?? 0,
  declared: {},
  current: {},
  usage: {},
});

const ids = (rows: readonly WorkloadSummary[]) =>
  rows.map((w) => `${w.namespace}/${w.name}/${w.kind}`);

describe('isFleetSort', () => {
  it('accepts the five sorts and nothing else', () => {
    for (const sort of FLEET_SORTS) expect(isFleetSort(sort)).toBe(true);
    for (const text of ['', 'bogus', 'Drift', 'toString', '__proto__'])
      expect(isFleetSort(text)).toBe(false);
  });
});

describe('replicasSaved', () => {
  it('is what a native HPA would run beyond what runs', () => {
    expect(replicasSaved(row({ current: 10, native: 15 }))).toBe(5);
    expect(replicasSaved(row({ current: 10, native: 7 }))).toBe(-3);
  });

  it('is 0 without an HPA or without a native figure', () => {
    expect(replicasSaved(row({ current: null, native: 9 }))).toBe(0);
    expect(replicasSaved(row({ current: 4, native: null }))).toBe(0);
  });
});

describe('orderFleet', () => {
  it('puts the biggest drift (native minus current replicas) first by default', () => {
    const rows = [
      row({ name: 'small', current: 10, native: 11 }),
      row({ name: 'none', current: null, native: null }),
      row({ name: 'big', current: 10, native: 22 }),
      row({ name: 'negative', current: 10, native: 8 }),
      row({ name: 'mid', current: 3, native: 8 }),
    ];
    expect(orderFleet(rows, 'drift', true).map((w) => w.name)).toEqual([
      'big',
      'mid',
      'small',
      'none',
      'negative',
    ]);
  });

  it('breaks drift ties by namespace, then name, then kind', () => {
    const rows = [
      row({ namespace: 'b', name: 'a', current: 1, native: 3 }),
      row({
        namespace: 'a',
        name: 'b',
        kind: 'StatefulSet',
        current: 1,
        native: 3,
      }),
      row({
        namespace: 'a',
        name: 'b',
        kind: 'Deployment',
        current: 5,
        native: 7,
      }),
      row({ namespace: 'a', name: 'a', current: 1, native: 3 }),
    ];
    expect(ids(orderFleet(rows, 'drift', true))).toEqual([
      'a/a/Deployment',
      'a/b/Deployment',
      'a/b/StatefulSet',
      'b/a/Deployment',
    ]);
  });

  it('reverses the sort key but not the tie order when ascending', () => {
    const rows = [
      row({ name: 'b', current: 1, native: 5 }),
      row({ name: 'a', current: 1, native: 5 }),
      row({ name: 'c', current: 1, native: 1 }),
    ];
    expect(orderFleet(rows, 'drift', false).map((w) => w.name)).toEqual([
      'c',
      'a',
      'b',
    ]);
  });

  it('sorts by namespace and by name as text', () => {
    const rows = [
      row({ namespace: 'ops', name: 'b' }),
      row({ namespace: 'blog', name: 'c' }),
      row({ namespace: 'shop', name: 'a' }),
    ];
    expect(
      orderFleet(rows, 'namespace', false).map((w) => w.namespace),
    ).toEqual(['blog', 'ops', 'shop']);
    expect(orderFleet(rows, 'namespace', true).map((w) => w.namespace)).toEqual(
      ['shop', 'ops', 'blog'],
    );
    expect(orderFleet(rows, 'name', false).map((w) => w.name)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('sorts by HPA replicas and by native replicas, workloads without either last when descending', () => {
    const rows = [
      row({ name: 'vpa-only', current: null, native: null }),
      row({ name: 'two', current: 2, native: 9 }),
      row({ name: 'eight', current: 8, native: 1 }),
      row({ name: 'unknown', current: 5, native: null }),
    ];
    expect(orderFleet(rows, 'replicas', true).map((w) => w.name)).toEqual([
      'eight',
      'unknown',
      'two',
      'vpa-only',
    ]);
    expect(orderFleet(rows, 'native', true).map((w) => w.name)).toEqual([
      'two',
      'eight',
      // Both have no native figure: a tie, by name.
      'unknown',
      'vpa-only',
    ]);
  });

  it('leaves its input as it was', () => {
    const rows = [row({ name: 'b' }), row({ name: 'a' })];
    orderFleet(rows, 'name', false);
    expect(rows.map((w) => w.name)).toEqual(['b', 'a']);
  });

  it('returns, for any fleet and sort, a permutation of the rows in sort order', () => {
    const rowArbitrary = fc
      .record({
        namespace: fc.constantFrom('blog', 'ops', 'shop'),
        name: fc.stringMatching(/^[a-z][a-z0-9-]{0,4}$/),
        kind: fc.constantFrom('Deployment', 'StatefulSet'),
        current: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
        native: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
      })
      .map(row);
    const key: Record<FleetSort, (w: WorkloadSummary) => number | string> = {
      drift: replicasSaved,
      namespace: (w) => w.namespace,
      name: (w) => w.name,
      replicas: (w) => w.hpa?.currentReplicas ?? -1,
      native: (w) => w.nativeEquivalentReplicas ?? -1,
    };
    const compare = (a: number | string, b: number | string) =>
      typeof a === 'number' && typeof b === 'number'
        ? Math.sign(a - b)
        : Math.sign(String(a).localeCompare(String(b)));
    const tie = (a: WorkloadSummary, b: WorkloadSummary) =>
      compare(a.namespace, b.namespace) ||
      compare(a.name, b.name) ||
      compare(a.kind, b.kind);
    fc.assert(
      fc.property(
        fc.array(rowArbitrary, { maxLength: 40 }),
        fc.constantFrom(...FLEET_SORTS),
        fc.boolean(),
        (rows, sort, descending) => {
          const ordered = orderFleet(rows, sort, descending);
          // A permutation: the same objects, each as often.
          expect(ordered).toHaveLength(rows.length);
          for (const w of rows)
            expect(ordered.filter((o) => o === w).length).toBe(
              rows.filter((r) => r === w).length,
            );
          // Sorted: by the key in the asked direction, ties by namespace, name and kind.
          for (let i = 1; i < ordered.length; i += 1) {
            const a = ordered[i - 1] as WorkloadSummary;
            const b = ordered[i] as WorkloadSummary;
            const primary =
              compare(key[sort](a), key[sort](b)) * (descending ? -1 : 1);
            expect(primary).toBeLessThanOrEqual(0);
            if (primary === 0) expect(tie(a, b)).toBeLessThanOrEqual(0);
          }
        },
      ),
    );
  });
});

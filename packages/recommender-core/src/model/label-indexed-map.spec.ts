import fc from 'fast-check';
import {
  compileLabelSelector,
  type LabelSelector,
  type Labels,
} from '@tandem/vpa-api';
import { LabelIndexedMap } from './label-indexed-map.js';
import { canonicalLabelText } from './label-set.js';

interface Entry {
  namespace: string;
  labels: Labels;
  labelText: string;
  value: number;
}

function entry(namespace: string, labels: Labels, value = 0): Entry {
  return { namespace, labels, labelText: canonicalLabelText(labels), value };
}

const app = (name: string) =>
  compileLabelSelector({ matchLabels: { app: name } });

describe('LabelIndexedMap', () => {
  it("selects the entries of the selector's namespace whose labels match", () => {
    const map = new LabelIndexedMap<Entry>();
    map
      .set('a/web-1', entry('a', { app: 'web' }, 1))
      .set('a/web-2', entry('a', { app: 'web' }, 2))
      .set('a/db-1', entry('a', { app: 'db' }, 3))
      .set('b/web-1', entry('b', { app: 'web' }, 4));
    const web = app('web');
    expect([...map.selectedBy('a', web)].map(([key]) => key)).toEqual([
      'a/web-1',
      'a/web-2',
    ]);
    expect([...map.selectedBy('b', web)].map(([key]) => key)).toEqual([
      'b/web-1',
    ]);
    expect([...map.selectedBy('c', web)]).toEqual([]);
  });

  it('sees entries that join, move between or leave label sets after a selection was remembered', () => {
    const map = new LabelIndexedMap<Entry>();
    const web = app('web');
    map.set('a/web-1', entry('a', { app: 'web' }));
    expect([...map.selectedBy('a', web)].length).toBe(1);
    // A new member of a known label set, and a brand-new label set that matches.
    map.set('a/web-2', entry('a', { app: 'web' }));
    map.set('a/web-3', entry('a', { app: 'web', tier: 'x' }));
    expect([...map.selectedBy('a', web)].map(([key]) => key).sort()).toEqual([
      'a/web-1',
      'a/web-2',
      'a/web-3',
    ]);
    // A pod relabelled away, and the namespace emptied and filled again.
    map.set('a/web-1', entry('a', { app: 'db' }));
    map.delete('a/web-2');
    map.delete('a/web-3');
    expect([...map.selectedBy('a', web)]).toEqual([]);
    map.delete('a/web-1');
    map.set('a/web-9', entry('a', { app: 'web' }));
    expect([...map.selectedBy('a', web)].map(([key]) => key)).toEqual([
      'a/web-9',
    ]);
    map.clear();
    expect([...map.selectedBy('a', web)]).toEqual([]);
  });

  it('always selects exactly what filtering the whole map would', () => {
    const namespace = fc.constantFrom('a', 'b');
    const labels = fc.record(
      { app: fc.constantFrom('web', 'db'), tier: fc.constantFrom('x', 'y') },
      { requiredKeys: [] },
    );
    const operation = fc.oneof(
      fc.record({
        set: fc.tuple(fc.integer({ min: 0, max: 5 }), namespace, labels),
      }),
      fc.record({ delete: fc.integer({ min: 0, max: 5 }) }),
      fc.record({
        select: fc.tuple(namespace, fc.integer({ min: 0, max: 2 })),
      }),
    );
    // Each with the label it requires (as TrackedVpa.requiredLabel gives it), compiled
    // twice: the hinted selection is remembered apart from the plain one.
    const selectors = (
      [
        { matchLabels: { app: 'web' } },
        { matchLabels: { tier: 'x', app: 'db' } },
        {},
      ] as LabelSelector[]
    ).map((selector: LabelSelector) => ({
      plain: compileLabelSelector(selector),
      hinted: compileLabelSelector(selector),
      required: Object.entries(selector.matchLabels ?? {})
        .map(([key, value]) => `${key}=${value}`)
        .at(0),
    }));
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) => {
        const map = new LabelIndexedMap<Entry>();
        for (const op of operations) {
          if ('set' in op) {
            const [id, ns, l] = op.set;
            // Keys embed the namespace, as pod and aggregate keys do.
            for (const other of ['a', 'b']) map.delete(`${other}/${id}`);
            map.set(`${ns}/${id}`, entry(ns, l));
          } else if ('delete' in op) {
            for (const ns of ['a', 'b']) map.delete(`${ns}/${op.delete}`);
          } else {
            const [ns, index] = op.select;
            const selector = selectors[index];
            if (selector === undefined) continue;
            const { plain, hinted, required } = selector;
            const expected = [...map]
              .filter(([, e]) => e.namespace === ns && plain.matches(e.labels))
              .map(([key]) => key)
              .sort();
            const actual = [...map.selectedBy(ns, plain)].map(([key]) => key);
            expect([...actual].sort()).toEqual(expected);
            expect(map.countSelectedBy(ns, plain)).toBe(expected.length);
            // The hint changes the work, never the answer nor its order.
            expect(
              [...map.selectedBy(ns, hinted, required)].map(([key]) => key),
            ).toEqual(actual);
            expect(map.countSelectedBy(ns, hinted, required)).toBe(
              expected.length,
            );
          }
        }
      }),
    );
  });
});

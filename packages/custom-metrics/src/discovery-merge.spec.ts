import fc from 'fast-check';
import { apiResourceList } from './discovery.js';
import { mergeDiscovery } from './discovery-merge.js';

const entry = (name: string) => ({
  name,
  singularName: '',
  namespaced: true,
  kind: 'MetricValueList',
  verbs: ['get'],
});
const list = (names: readonly string[]) => ({
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'custom.metrics.k8s.io/v1beta2',
  resources: names.map(entry),
});
const names = (merged: object) =>
  (merged as { resources: { name: string }[] }).resources.map((r) => r.name);

describe('mergeDiscovery', () => {
  it("lists Tandem's resources, then the upstream's others; Tandem wins a clash", () => {
    const tandem = apiResourceList('v1beta2');
    const { list: merged, shadowed } = mergeDiscovery(
      tandem,
      list(['services/http_requests', 'pods/cpu_usage', 'pods/packets']),
    );
    const own = names(tandem);
    expect(names(merged)).toEqual([
      ...own,
      'services/http_requests',
      'pods/packets',
    ]);
    expect(shadowed).toEqual(['pods/cpu_usage']);
    expect(merged).toMatchObject({
      kind: 'APIResourceList',
      groupVersion: 'custom.metrics.k8s.io/v1beta2',
    });
  });

  it.each([
    ['nothing', undefined],
    ['a Status', { kind: 'Status', code: 503, resources: [entry('x/y')] }],
    ['text', 'upstream error'],
    ['resources not a list', { kind: 'APIResourceList', resources: {} }],
  ])('keeps Tandem’s list alone when the upstream answered %s', (_, body) => {
    const tandem = apiResourceList('v1beta1');
    expect(mergeDiscovery(tandem, body)).toEqual({
      list: tandem,
      shadowed: [],
    });
  });

  it('skips nameless upstream entries and repeats', () => {
    const upstream = {
      ...list(['a/b', 'a/b']),
      resources: [entry('a/b'), entry('a/b'), { name: '' }, 7, null],
    };
    expect(names(mergeDiscovery(list([]), upstream).list)).toEqual(['a/b']);
  });

  it('holds every name of both sides once, Tandem’s first and unchanged', () => {
    const name = fc.stringMatching(/^[a-z]{1,3}\/[a-z]{1,3}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(name),
        fc.array(name),
        (ownNames, upstreamNames) => {
          const tandem = list(ownNames);
          const { list: merged, shadowed } = mergeDiscovery(
            tandem,
            list(upstreamNames),
          );
          const result = names(merged);
          expect(result.slice(0, ownNames.length)).toEqual(ownNames);
          expect(new Set(result)).toEqual(
            new Set([...ownNames, ...upstreamNames]),
          );
          expect(result).toHaveLength(new Set(result).size);
          expect(new Set(shadowed)).toEqual(
            new Set(upstreamNames.filter((n) => ownNames.includes(n))),
          );
        },
      ),
    );
  });
});

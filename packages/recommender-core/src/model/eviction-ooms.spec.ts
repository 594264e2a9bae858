import fc from 'fast-check';
import { oomsFromEvictionEvent, type ObservedEvent } from './eviction-ooms.js';

const CREATED = '2024-01-01T10:00:00Z';

function evicted(
  annotations: Record<string, string>,
  overrides: Partial<ObservedEvent> = {},
): ObservedEvent {
  return {
    metadata: { annotations, creationTimestamp: CREATED },
    reason: 'Evicted',
    involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-1' },
    ...overrides,
  };
}

const oom = (containerName: string, memoryBytes: number) => ({
  namespace: 'shop',
  podName: 'web-1',
  containerName,
  timeMs: Date.parse(CREATED),
  memoryBytes,
});

describe('oomsFromEvictionEvent', () => {
  it('turns each container evicted for memory into an OOM at its usage', () => {
    const event = evicted({
      offending_containers: 'app,sidecar,log',
      offending_containers_usage: '300Mi,10m,1.5Ki',
      starved_resource: 'memory,cpu,memory',
    });
    expect(oomsFromEvictionEvent(event)).toEqual([
      oom('app', 300 * 1024 * 1024),
      // Value() rounds a fractional byte count up.
      oom('log', 1536),
    ]);
  });

  it('takes the creation time from a Date as client-node delivers it', () => {
    const event = evicted(
      {
        offending_containers: 'app',
        offending_containers_usage: '1Gi',
        starved_resource: 'memory',
      },
      {},
    );
    const withDate = {
      ...event,
      metadata: { ...event.metadata, creationTimestamp: new Date(CREATED) },
    };
    expect(oomsFromEvictionEvent(withDate)).toEqual([oom('app', 2 ** 30)]);
  });

  it.each([
    ['another reason', { reason: 'Killing' }],
    ['an object that is not a pod', { involvedObject: { kind: 'Node' } }],
  ])('ignores %s', (_, overrides) => {
    const event = evicted(
      {
        offending_containers: 'app',
        offending_containers_usage: '1Gi',
        starved_resource: 'memory',
      },
      overrides,
    );
    expect(oomsFromEvictionEvent(event)).toEqual([]);
  });

  it('ignores lists of unequal length and events without annotations', () => {
    expect(
      oomsFromEvictionEvent(
        evicted({
          offending_containers: 'app,sidecar',
          offending_containers_usage: '1Gi',
          starved_resource: 'memory,memory',
        }),
      ),
    ).toEqual([]);
    expect(oomsFromEvictionEvent(evicted({}))).toEqual([]);
  });

  it('skips only the container whose usage does not parse', () => {
    const event = evicted({
      offending_containers: 'app,sidecar',
      offending_containers_usage: 'lots,64Mi',
      starved_resource: 'memory,memory',
    });
    expect(oomsFromEvictionEvent(event)).toEqual([
      oom('sidecar', 64 * 2 ** 20),
    ]);
  });

  it('gives exactly one OOM per memory entry, whatever the lists hold', () => {
    const entry = fc.record({
      container: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
      bytes: fc.integer({ min: 0, max: 2 ** 40 }),
      resource: fc.constantFrom('memory', 'cpu', 'ephemeral-storage'),
    });
    fc.assert(
      fc.property(
        fc.array(entry, { minLength: 1, maxLength: 8 }),
        (entries) => {
          const ooms = oomsFromEvictionEvent(
            evicted({
              offending_containers: entries.map((e) => e.container).join(','),
              offending_containers_usage: entries.map((e) => e.bytes).join(','),
              starved_resource: entries.map((e) => e.resource).join(','),
            }),
          );
          const memory = entries.filter((e) => e.resource === 'memory');
          expect(ooms.map((o) => [o.containerName, o.memoryBytes])).toEqual(
            memory.map((e) => [e.container, e.bytes]),
          );
        },
      ),
    );
  });
});

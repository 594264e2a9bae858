import fc from 'fast-check';
import { parseOriginalResources, type Pod } from '@tandem/vpa-api';
import { originalResourcesAnnotation } from './original-resources.js';

function pod(spec: Pod['spec']): Pod {
  return { spec };
}

describe('originalResourcesAnnotation', () => {
  it('records every init container and container as submitted, in pod order', () => {
    const text = originalResourcesAnnotation(
      pod({
        initContainers: [
          { name: 'init', resources: { requests: { cpu: '0.5' } } },
        ],
        containers: [
          {
            name: 'app',
            resources: {
              requests: { memory: '512Mi', cpu: '500m' },
              limits: { cpu: '1.0' },
            },
          },
          { name: 'bare' },
          { name: 'empty', resources: {} },
        ],
      }),
    );
    expect(text).toBe(
      '{"init":{"requests":{"cpu":"0.5"},"limits":{}},' +
        '"app":{"requests":{"memory":"512Mi","cpu":"500m"},"limits":{"cpu":"1.0"}},' +
        '"bare":{"requests":{},"limits":{}},' +
        '"empty":{"requests":{},"limits":{}}}',
    );
  });

  it('is an empty object for a pod without containers', () => {
    expect(originalResourcesAnnotation(pod({ containers: [] }))).toBe('{}');
  });

  it('keeps the first of two containers with the same name', () => {
    const text = originalResourcesAnnotation(
      pod({
        initContainers: [{ name: 'x', resources: { limits: { cpu: '1' } } }],
        containers: [{ name: 'x', resources: { limits: { cpu: '2' } } }],
      }),
    );
    expect(text).toBe('{"x":{"requests":{},"limits":{"cpu":"1"}}}');
  });

  it('keeps pod order for names that look like array indexes', () => {
    const text = originalResourcesAnnotation(
      pod({ initContainers: [{ name: 'init' }], containers: [{ name: '0' }] }),
    );
    expect(text).toBe(
      '{"init":{"requests":{},"limits":{}},"0":{"requests":{},"limits":{}}}',
    );
  });

  it('keeps names that are special to JavaScript objects as plain keys', () => {
    const text = originalResourcesAnnotation(
      pod({ containers: [{ name: '__proto__' }, { name: 'constructor' }] }),
    );
    expect(text).toBe(
      '{"__proto__":{"requests":{},"limits":{}},"constructor":{"requests":{},"limits":{}}}',
    );
  });
});

describe('originalResourcesAnnotation read back by parseOriginalResources', () => {
  it('reads back exactly what originalResourcesAnnotation wrote, for any pod', () => {
    const quantity = fc.constantFrom(
      '1',
      '250m',
      '0.5',
      '1.5Gi',
      '128974848',
      '129e6',
      '1e3',
    );
    const resources = fc.dictionary(
      fc.constantFrom('cpu', 'memory', 'ephemeral-storage', 'nvidia.com/gpu'),
      quantity,
    );
    const container = fc.record(
      {
        name: fc.string({ minLength: 1, maxLength: 12 }),
        resources: fc.record(
          { requests: resources, limits: resources },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ['name'] },
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(container, { selector: (c) => c.name, maxLength: 6 }),
        fc.nat(),
        (containers, split) => {
          const cut = containers.length === 0 ? 0 : split % containers.length;
          const spec = {
            initContainers: containers.slice(0, cut),
            containers: containers.slice(cut),
          };
          const parsed = parseOriginalResources(
            originalResourcesAnnotation(pod(spec)),
          );
          expect(parsed).toEqual(
            new Map(
              containers.map((c) => [
                c.name,
                {
                  requests: c.resources?.requests ?? {},
                  limits: c.resources?.limits ?? {},
                },
              ]),
            ),
          );
        },
      ),
    );
  });
});

import { observedContainers } from './observed-containers.js';
import { container, podWith } from './updater.fixtures.js';

const withAnnotation = (value?: string) =>
  observedContainers(
    podWith([container('app')], {
      ...(value !== undefined && {
        annotations: { vpaObservedContainers: value },
      }),
    }),
  );

describe('observedContainers', () => {
  it.each([
    ['absent', undefined, undefined],
    ['empty', '', []],
    ['one', 'app', ['app']],
    ['several, ", "-separated', 'app, istio-proxy', ['app', 'istio-proxy']],
    ['not DNS-1123 labels', 'App', undefined],
    ['a bare comma separator', 'app,proxy', undefined],
    ['too long a name', 'a'.repeat(64), undefined],
  ])('%s', (_name, value, expected) => {
    const observed = withAnnotation(value);
    expect(observed && [...observed]).toEqual(expected);
  });
});

import { keyOf, objectKey, resourceVersionOf } from './object-key.js';

describe('object keys', () => {
  it('keys namespaced objects namespace/name', () => {
    expect(keyOf('ns', 'a')).toBe('ns/a');
    expect(objectKey({ metadata: { namespace: 'ns', name: 'a' } })).toBe(
      'ns/a',
    );
  });

  it('keys cluster-scoped objects by name only', () => {
    expect(keyOf(undefined, 'node-1')).toBe('node-1');
    expect(keyOf('', 'node-1')).toBe('node-1');
    expect(objectKey({ metadata: { name: 'node-1' } })).toBe('node-1');
  });

  it('refuses objects without a name, naming their kind', () => {
    expect(() => objectKey({ kind: 'ConfigMap', metadata: {} })).toThrow(
      'a ConfigMap object without metadata.name cannot be cached',
    );
  });

  it('reads the resourceVersion', () => {
    expect(resourceVersionOf({ metadata: { resourceVersion: '7' } })).toBe('7');
    expect(resourceVersionOf({})).toBeUndefined();
  });
});

import fc from 'fast-check';
import { sharedParts } from './shared-parts.js';

const part = fc.dictionary(
  fc.constantFrom('app', 'tier', 'team', 'version'),
  fc.oneof(
    fc.constantFrom('web', 'api', '1', '2'),
    fc.dictionary(fc.constantFrom('cpu', 'memory'), fc.constantFrom('1', '2')),
  ),
);

describe('sharedParts', () => {
  it('hands back the first part held for every equal one, and keeps each as it was', () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 20 }), (parts) => {
        const share = sharedParts();
        const copies = parts.map((each) => structuredClone(each));
        const shared = parts.map((each) => share(each));
        shared.forEach((each, index) => {
          expect(each).toEqual(copies[index]);
          const first = shared.find(
            (other) => JSON.stringify(other) === JSON.stringify(each),
          );
          expect(each).toBe(first);
        });
      }),
    );
  });

  it('never hands back a part of different content', () => {
    const share = sharedParts();
    const web = share({ app: 'web' });
    const api = share({ app: 'api' });
    expect(api).not.toBe(web);
    expect(share({ app: 'web', tier: '1' })).not.toBe(web);
    expect(share({ app: 'web' })).toBe(web);
  });

  it('freezes what it holds, nested parts too, since every holder sees the same one', () => {
    const share = sharedParts();
    const resources = share({ requests: { cpu: '1' }, limits: { cpu: '2' } });
    expect(Object.isFrozen(resources)).toBe(true);
    expect(Object.isFrozen(resources.requests)).toBe(true);
    expect(() => {
      (resources.requests as { cpu: string }).cpu = '3';
    }).toThrow(TypeError);
  });
});

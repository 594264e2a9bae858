import fc from 'fast-check';
import { parseQuantity } from './quantity.js';
import {
  formatResourceList,
  parseResourceList,
  resourceListEntry,
} from './resource-list.js';

const name = fc.oneof(
  fc.constantFrom(
    'cpu',
    'memory',
    'nvidia.com/gpu',
    '__proto__',
    'constructor',
  ),
  fc.string(),
);
const text = fc.constantFrom('100m', '1', '1.5', '64Mi', '1e3', '0', '2Gi');
const list = fc
  .array(fc.tuple(name, text))
  .map((entries) => Object.fromEntries(entries));

describe('parseResourceList and formatResourceList', () => {
  it('parse every entry in key order, as mapping Object.entries does', () => {
    fc.assert(
      fc.property(list, (resources) => {
        expect([...parseResourceList(resources)]).toEqual(
          Object.entries(resources).map(([key, value]) => [
            key,
            parseQuantity(value),
          ]),
        );
      }),
    );
    expect(parseResourceList(undefined).size).toBe(0);
  });

  it('resourceListEntry answers as the parsed list, and throws as parsing it does (fast-check)', () => {
    const anyText = fc.oneof(text, fc.constantFrom('lots', '', '1x', '-1'));
    const anyList = fc
      .array(fc.tuple(name, anyText))
      .map((entries) => Object.fromEntries(entries));
    fc.assert(
      fc.property(anyList, name, (resources, wanted) => {
        let parsed: Error | ReturnType<typeof parseResourceList>;
        try {
          parsed = parseResourceList(resources);
        } catch (error) {
          parsed = error as Error;
        }
        if (parsed instanceof Error)
          expect(() => resourceListEntry(resources, wanted)).toThrow(parsed);
        else
          expect(resourceListEntry(resources, wanted)).toBe(parsed.get(wanted));
      }),
    );
    expect(resourceListEntry(undefined, 'cpu')).toBeUndefined();
  });

  it('format every entry as an own property in map order, as Object.fromEntries does', () => {
    fc.assert(
      fc.property(list, (resources) => {
        const quantities = parseResourceList(resources);
        const formatted = formatResourceList(quantities);
        const general = Object.fromEntries(
          [...quantities].map(([key, quantity]) => [key, quantity.toString()]),
        );
        expect(Object.getPrototypeOf(formatted)).toBe(Object.prototype);
        expect(Object.entries(formatted)).toEqual(Object.entries(general));
      }),
    );
  });
});

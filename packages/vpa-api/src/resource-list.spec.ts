import fc from 'fast-check';
import { parseQuantity } from './quantity.js';
import { formatResourceList, parseResourceList } from './resource-list.js';

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

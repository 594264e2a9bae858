import fc from 'fast-check';
import { canonicalLabelText, LabelSetInterner } from './label-set.js';

describe('canonicalLabelText', () => {
  it('is the keys sorted as Array.prototype.sort orders them, joined key=value', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.string(), { maxKeys: 12 }),
        (labels) => {
          const expected = Object.keys(labels)
            .sort()
            .map((key) => `${key}=${labels[key] ?? ''}`)
            .join(',');
          expect(canonicalLabelText(labels)).toBe(expected);
        },
      ),
    );
  });

  it('gives {} the empty text and one frozen copy per label set', () => {
    expect(canonicalLabelText({})).toBe('');
    const interner = new LabelSetInterner();
    const first = interner.intern({ b: '2', a: '1' }, 'a=1,b=2');
    expect(interner.intern({ a: '1', b: '2' }, 'a=1,b=2')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});

import { legend } from './svg-legend.js';

const entry = (label: string) => ({ swatch: '<rect/>', label });

describe('legend', () => {
  it('lays entries out left to right, label after swatch', () => {
    const drawn = legend(10, 20, 1000, [entry('one'), entry('two')]);
    expect(drawn).toContain(
      '<g transform="translate(10 20)"><rect/><text x="30" y="10">one</text></g>',
    );
    expect(drawn).toMatch(
      /translate\(\d+(\.\d)? 20\)"><rect\/><text x="30" y="10">two</,
    );
  });

  it('wraps to a new row when the next entry would pass the width', () => {
    const drawn = legend(0, 0, 120, [entry('a long label'), entry('another')]);
    expect(drawn).toContain('translate(0 20)');
  });

  it('escapes labels', () => {
    expect(legend(0, 0, 100, [entry('a<b')])).toContain('>a&lt;b<');
  });
});

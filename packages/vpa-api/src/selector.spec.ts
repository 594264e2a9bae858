import fc from 'fast-check';
import {
  compileLabelSelector,
  SelectorError,
  type LabelSelector,
  type LabelSelectorRequirement,
} from './selector.js';

describe('compileLabelSelector', () => {
  const labels = { app: 'web', tier: 'frontend', 'example.com/team': 'a' };

  it.each<[string, LabelSelector, boolean]>([
    ['empty selector matches everything', {}, true],
    ['matchLabels equal', { matchLabels: { app: 'web' } }, true],
    ['matchLabels different value', { matchLabels: { app: 'db' } }, false],
    ['matchLabels missing key', { matchLabels: { env: 'prod' } }, false],
    ['prefixed key', { matchLabels: { 'example.com/team': 'a' } }, true],
    [
      'In',
      {
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['backend', 'frontend'] },
        ],
      },
      true,
    ],
    [
      'In, value not listed',
      {
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['backend'] },
        ],
      },
      false,
    ],
    [
      'In, key absent',
      { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
      false,
    ],
    [
      'NotIn',
      {
        matchExpressions: [
          { key: 'tier', operator: 'NotIn', values: ['backend'] },
        ],
      },
      true,
    ],
    [
      'NotIn, value listed',
      {
        matchExpressions: [
          { key: 'tier', operator: 'NotIn', values: ['frontend'] },
        ],
      },
      false,
    ],
    [
      'NotIn, key absent',
      {
        matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }],
      },
      true,
    ],
    [
      'Exists',
      { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
      true,
    ],
    [
      'Exists, key absent',
      { matchExpressions: [{ key: 'env', operator: 'Exists' }] },
      false,
    ],
    [
      'DoesNotExist',
      { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] },
      true,
    ],
    [
      'DoesNotExist, key present',
      {
        matchExpressions: [
          { key: 'app', operator: 'DoesNotExist', values: [] },
        ],
      },
      false,
    ],
    [
      'labels and expressions must all hold',
      {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['backend'] },
        ],
      },
      false,
    ],
  ])('%s', (_name, selector, expected) => {
    expect(compileLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('matches nothing without a selector, and treats missing labels as none', () => {
    expect(compileLabelSelector(undefined).matches(labels)).toBe(false);
    expect(compileLabelSelector(null).matches({})).toBe(false);
    expect(compileLabelSelector({}).matches(undefined)).toBe(true);
    expect(
      compileLabelSelector({ matchLabels: { a: 'b' } }).matches(undefined),
    ).toBe(false);
  });

  it('tolerates null lists as the API server sends them', () => {
    const selector = {
      matchLabels: null,
      matchExpressions: [{ key: 'a', operator: 'Exists', values: null }],
    };
    expect(
      compileLabelSelector(selector as unknown as LabelSelector).matches({
        a: '',
      }),
    ).toBe(true);
  });

  it('does not match inherited properties', () => {
    expect(
      compileLabelSelector({
        matchExpressions: [{ key: 'constructor', operator: 'Exists' }],
      }).matches({}),
    ).toBe(false);
  });
});

describe('compileLabelSelector errors', () => {
  const expression = (requirement: unknown): LabelSelector =>
    ({ matchExpressions: [requirement] }) as LabelSelector;

  it.each<[string, unknown, string]>([
    [
      'unknown operator',
      expression({ key: 'a', operator: 'Equals', values: ['x'] }),
      'matchExpressions[0].operator: unknown operator "Equals" (expected In, NotIn, Exists, DoesNotExist)',
    ],
    [
      'missing operator',
      expression({ key: 'a' }),
      'matchExpressions[0].operator: unknown operator undefined',
    ],
    [
      'In without values',
      expression({ key: 'a', operator: 'In', values: [] }),
      'matchExpressions[0].values: must be non-empty for operator In',
    ],
    [
      'NotIn without values',
      expression({ key: 'a', operator: 'NotIn' }),
      'matchExpressions[0].values: must be non-empty for operator NotIn',
    ],
    [
      'Exists with values',
      expression({ key: 'a', operator: 'Exists', values: ['x'] }),
      'matchExpressions[0].values: must be empty for operator Exists',
    ],
    [
      'DoesNotExist with values',
      expression({ key: 'a', operator: 'DoesNotExist', values: ['x'] }),
      'must be empty for operator DoesNotExist',
    ],
    [
      'values not a list',
      expression({ key: 'a', operator: 'In', values: 'x' }),
      'matchExpressions[0].values: must be a list',
    ],
    [
      'non-string value',
      expression({ key: 'a', operator: 'In', values: [1] }),
      'matchExpressions[0].values[0]: label value must be a string',
    ],
    [
      'invalid value',
      expression({ key: 'a', operator: 'In', values: ['ok', 'not ok'] }),
      'matchExpressions[0].values[1]: label value "not ok" must be empty or at most 63',
    ],
    [
      'value too long',
      { matchLabels: { a: 'v'.repeat(64) } },
      'matchLabels["a"]: label value "vvvv',
    ],
    [
      'value ending in a dash',
      { matchLabels: { a: 'v-' } },
      'label value "v-"',
    ],
    [
      'non-string key',
      expression({ key: 7, operator: 'Exists' }),
      'matchExpressions[0].key: label key must be a string',
    ],
    [
      'empty key',
      { matchLabels: { '': 'x' } },
      'matchLabels[""]: label key "" has an empty name',
    ],
    [
      'key with two slashes',
      { matchLabels: { 'a/b/c': 'x' } },
      'may contain at most one "/"',
    ],
    [
      'key with an empty prefix',
      { matchLabels: { '/b': 'x' } },
      'has an empty prefix',
    ],
    [
      'key with an empty name',
      { matchLabels: { 'a.io/': 'x' } },
      'has an empty name',
    ],
    [
      'key with an upper-case prefix',
      { matchLabels: { 'Example.com/b': 'x' } },
      'prefix must be a DNS subdomain',
    ],
    [
      'key name too long',
      { matchLabels: { ['k'.repeat(64)]: 'x' } },
      'name must be at most 63 characters',
    ],
    [
      'key with a space',
      { matchLabels: { 'my key': 'x' } },
      'label key "my key": name must be',
    ],
    [
      'matchLabels not an object',
      { matchLabels: ['a'] },
      'matchLabels: must be an object',
    ],
    [
      'matchExpressions not a list',
      { matchExpressions: {} },
      'matchExpressions: must be a list',
    ],
    [
      'expression not an object',
      expression('a'),
      'matchExpressions[0]: must be an object',
    ],
    ['selector not an object', 'app=web', '<selector>: must be an object'],
  ])('%s', (_name, selector, message) => {
    const compile = () => compileLabelSelector(selector as LabelSelector);
    expect(compile).toThrow(SelectorError);
    expect(compile).toThrow(message);
  });

  it('reports where the problem is', () => {
    try {
      compileLabelSelector(expression({ key: 'a', operator: 'In' }));
    } catch (error) {
      expect(error).toMatchObject({
        name: 'SelectorError',
        path: 'matchExpressions[0].values',
      });
    }
    expect.assertions(1);
  });
});

describe('label selector properties', () => {
  const name = fc.stringMatching(/^[a-z0-9]([-a-z0-9_.]{0,10}[a-z0-9])?$/);
  const key = fc.oneof(
    name,
    fc
      .tuple(fc.constantFrom('example.com', 'k8s.io', 'a-b.c'), name)
      .map(([p, n]) => `${p}/${n}`),
  );
  const value = fc.oneof(fc.constant(''), name);
  const labelSet = fc.dictionary(key, value, { maxKeys: 6 });
  const requirement: fc.Arbitrary<LabelSelectorRequirement> = fc.oneof(
    fc.record({
      key,
      operator: fc.constantFrom('In' as const, 'NotIn' as const),
      values: fc.array(value, { minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      key,
      operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const),
    }),
  );

  it('a selector built from a label set matches it and any superset, and nothing that changes a value', () => {
    fc.assert(
      fc.property(labelSet, labelSet, (selected, extra) => {
        const matcher = compileLabelSelector({ matchLabels: selected });
        expect(matcher.matches(selected)).toBe(true);
        expect(matcher.matches({ ...extra, ...selected })).toBe(true);
        for (const changedKey of Object.keys(selected)) {
          expect(
            matcher.matches({
              ...selected,
              [changedKey]: `${selected[changedKey]}x`,
            }),
          ).toBe(false);
        }
      }),
    );
  });

  it('In and NotIn, Exists and DoesNotExist are complements', () => {
    fc.assert(
      fc.property(requirement, labelSet, (req, labels) => {
        const opposite = {
          In: 'NotIn',
          NotIn: 'In',
          Exists: 'DoesNotExist',
          DoesNotExist: 'Exists',
        } as const;
        const one = compileLabelSelector({ matchExpressions: [req] }).matches(
          labels,
        );
        const other = compileLabelSelector({
          matchExpressions: [{ ...req, operator: opposite[req.operator] }],
        }).matches(labels);
        expect(one).toBe(!other);
      }),
    );
  });

  it('a selector matches exactly when each of its requirements does', () => {
    fc.assert(
      fc.property(
        fc.array(requirement, { maxLength: 4 }),
        labelSet,
        (requirements, labels) => {
          const all = compileLabelSelector({
            matchExpressions: requirements,
          }).matches(labels);
          const each = requirements.every((req) =>
            compileLabelSelector({ matchExpressions: [req] }).matches(labels),
          );
          expect(all).toBe(each);
        },
      ),
    );
  });

  it('rejects keys and values with characters outside the label alphabet', () => {
    fc.assert(
      fc.property(
        name,
        fc.constantFrom(' ', '!', '@', '#', 'é', '*', ':'),
        (base, bad) => {
          expect(() =>
            compileLabelSelector({ matchLabels: { [`${base}${bad}z`]: 'v' } }),
          ).toThrow(SelectorError);
          expect(() =>
            compileLabelSelector({ matchLabels: { k: `${base}${bad}z` } }),
          ).toThrow(SelectorError);
        },
      ),
    );
  });
});

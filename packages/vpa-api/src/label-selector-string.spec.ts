import fc from 'fast-check';
import { parseLabelSelector } from './label-selector-string.js';
import {
  compileLabelSelector,
  SelectorError,
  type LabelSelectorRequirement,
} from './selector.js';

describe('parseLabelSelector', () => {
  it.each<[string, LabelSelectorRequirement[] | undefined]>([
    ['', undefined],
    ['   ', undefined],
    ['app=web', [{ key: 'app', operator: 'In', values: ['web'] }]],
    ['app==web', [{ key: 'app', operator: 'In', values: ['web'] }]],
    ['app!=web', [{ key: 'app', operator: 'NotIn', values: ['web'] }]],
    ['app=', [{ key: 'app', operator: 'In', values: [''] }]],
    [
      'app=,tier',
      [
        { key: 'app', operator: 'In', values: [''] },
        { key: 'tier', operator: 'Exists' },
      ],
    ],
    ['tier', [{ key: 'tier', operator: 'Exists' }]],
    ['!canary', [{ key: 'canary', operator: 'DoesNotExist' }]],
    [
      ' tier in ( a , b ) ',
      [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
    ],
    ['tier notin (a)', [{ key: 'tier', operator: 'NotIn', values: ['a'] }]],
    ['tier in (a,)', [{ key: 'tier', operator: 'In', values: ['a', ''] }]],
    [
      'example.com/team=a,app in (x,y),!legacy,env!=prod',
      [
        { key: 'example.com/team', operator: 'In', values: ['a'] },
        { key: 'app', operator: 'In', values: ['x', 'y'] },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
      ],
    ],
  ])('parses %j', (text, matchExpressions) => {
    expect(parseLabelSelector(text)).toEqual(
      matchExpressions === undefined ? {} : { matchExpressions },
    );
  });

  it.each([
    ['a trailing comma', 'app=web,', /found the end, expected a label key/],
    ['a missing key', '=web', /found "=", expected a label key/],
    ['"!" without a key', '!', /expected a label key after "!"/],
    ['two words', 'app web', /found "web" after "app"/],
    ['a missing "("', 'tier in a', /expected "\(" after in\/notin/],
    ['an unclosed set', 'tier in (a', /in a value set, expected "," or "\)"/],
    ['an empty set', 'tier in ()', /must be non-empty for operator In/],
    ['a comparison', 'replicas>3', /cannot be expressed as a LabelSelector/],
    ['an invalid key', 'a/b/c=x', /may contain at most one "\/"/],
    ['an invalid value', 'app=-web', /must be empty or at most 63/],
    ['junk after a value', 'app=web)', /found "\)", expected "," or the end/],
  ])('rejects %s', (_, text, message) => {
    expect(() => parseLabelSelector(text)).toThrow(SelectorError);
    expect(() => parseLabelSelector(text)).toThrow(message);
  });

  it('selects what the equivalent structured selector selects', () => {
    const matcher = compileLabelSelector(
      parseLabelSelector('app=web,tier notin (db),!canary'),
    );
    expect(matcher.matches({ app: 'web', tier: 'frontend' })).toBe(true);
    expect(matcher.matches({ app: 'web' })).toBe(true);
    expect(matcher.matches({ app: 'web', tier: 'db' })).toBe(false);
    expect(matcher.matches({ app: 'web', canary: '' })).toBe(false);
    expect(matcher.matches({ app: 'api' })).toBe(false);
  });
});

describe('parseLabelSelector (properties)', () => {
  const name = fc.stringMatching(/^[a-z0-9]([-a-z0-9_.]{0,10}[a-z0-9])?$/);
  const key = fc.oneof(
    name,
    fc
      .tuple(fc.stringMatching(/^[a-z]{1,8}\.[a-z]{2,3}$/), name)
      .map(([prefix, rest]) => `${prefix}/${rest}`),
  );
  const value = fc.oneof(fc.constant(''), name);
  const space = fc.constantFrom('', ' ', '  ');

  const writes = (
    requirement: LabelSelectorRequirement,
    text: string,
  ): [LabelSelectorRequirement, string] => [requirement, text];
  /** A requirement and one of the ways to write it. */
  const written: fc.Arbitrary<[LabelSelectorRequirement, string]> = fc.oneof(
    fc
      .tuple(key, value, fc.constantFrom('=', '=='), space)
      .map(([k, v, op, s]) =>
        writes(
          { key: k, operator: 'In', values: [v] },
          `${k}${s}${op}${s}${v}`,
        ),
      ),
    fc
      .tuple(key, value, space)
      .map(([k, v, s]) =>
        writes(
          { key: k, operator: 'NotIn', values: [v] },
          `${k}${s}!=${s}${v}`,
        ),
      ),
    fc
      .tuple(
        key,
        fc.array(name, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('In' as const, 'NotIn' as const),
        space,
      )
      .map(([k, vs, operator, s]) =>
        writes(
          { key: k, operator, values: vs },
          `${k} ${operator.toLowerCase()}${s}(${s}${vs.join(`${s},${s}`)}${s})`,
        ),
      ),
    key.map((k) => writes({ key: k, operator: 'Exists' }, k)),
    fc
      .tuple(key, space)
      .map(([k, s]) =>
        writes({ key: k, operator: 'DoesNotExist' }, `!${s}${k}`),
      ),
  );

  it('reads back every requirement, however it is written', () => {
    fc.assert(
      fc.property(
        fc.array(written, { minLength: 1, maxLength: 5 }),
        space,
        (requirements, s) => {
          const text = requirements.map(([, part]) => part).join(`${s},${s}`);
          expect(parseLabelSelector(text)).toEqual({
            matchExpressions: requirements.map(([requirement]) => requirement),
          });
        },
      ),
    );
  });

  it('throws nothing but SelectorError, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(...'ab=!(),<> in/.-'.split('')),
          maxLength: 20,
        }),
        (text) => {
          try {
            parseLabelSelector(text);
          } catch (error) {
            expect(error).toBeInstanceOf(SelectorError);
          }
        },
      ),
    );
  });
});

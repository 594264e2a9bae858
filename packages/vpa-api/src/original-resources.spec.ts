import fc from 'fast-check';
import { parseOriginalResources } from './original-resources.js';

describe('parseOriginalResources', () => {
  it('reads what the webhook writes', () => {
    const parsed = parseOriginalResources(
      '{"app":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"cpu":"1"}},"bare":{"requests":{},"limits":{}}}',
    );
    expect(parsed).toEqual(
      new Map([
        [
          'app',
          {
            requests: { cpu: '500m', memory: '512Mi' },
            limits: { cpu: '1' },
          },
        ],
        ['bare', { requests: {}, limits: {} }],
      ]),
    );
  });

  it('does not find containers the annotation lacks, whatever their name', () => {
    const parsed = parseOriginalResources('{}');
    expect(parsed).toBeInstanceOf(Map);
    expect((parsed as Map<string, unknown>).get('constructor')).toBeUndefined();
  });

  it.each([
    ['', 'original resources: not JSON (Unexpected end of JSON input)'],
    ['[]', 'original resources: must be a JSON object of containers, got []'],
    [
      'null',
      'original resources: must be a JSON object of containers, got null',
    ],
    [
      '{"app":"500m"}',
      'original resources["app"]: must be an object with requests and limits, got "500m"',
    ],
    ['{"app":{"requests":{}}}', 'original resources["app"].limits: missing'],
    ['{"app":{"limits":{}}}', 'original resources["app"].requests: missing'],
    [
      '{"app":{"requests":{},"limits":{},"claims":[]}}',
      'original resources["app"]: unknown field "claims" (only requests and limits)',
    ],
    [
      '{"app":{"requests":[],"limits":{}}}',
      'original resources["app"].requests: must be an object of quantities, got []',
    ],
    [
      '{"app":{"requests":{"cpu":1},"limits":{}}}',
      'original resources["app"].requests["cpu"]: must be a quantity string, got 1',
    ],
    [
      '{"app":{"requests":{},"limits":{"memory":"lots"}}}',
      'original resources["app"].limits["memory"]: invalid quantity "lots": expected a number such as 1, 1.5 or .5 before any suffix',
    ],
  ])('refuses %j', (text, message) => {
    const parsed = parseOriginalResources(text);
    expect(parsed).toBeInstanceOf(Error);
    expect((parsed as Error).message).toBe(message);
  });

  it('cuts a long offending value short in the message', () => {
    const parsed = parseOriginalResources(`{"app":"${'x'.repeat(500)}"}`);
    expect(parsed).toBeInstanceOf(Error);
    expect((parsed as Error).message.length).toBeLessThan(200);
    expect((parsed as Error).message).toMatch(/…$/);
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const parsed = parseOriginalResources(text);
        expect(parsed instanceof Map || parsed instanceof Error).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

import { boundaryRequest, proportionalLimit } from './limits.js';
import { parseQuantity } from './quantity.js';

const q = (text: string) => parseQuantity(text);
const optional = (text: string | undefined) =>
  text === undefined ? undefined : q(text);

interface LimitCase {
  name: string;
  limit?: string;
  request?: string;
  recommended?: string;
  defaultLimit?: string;
  expected?: string;
  annotation?: string;
}

// Vector 19, every case, for CPU and for memory.
const vector19: LimitCase[] = [
  {
    name: 'scales proportionally',
    limit: '2',
    request: '1',
    recommended: '10',
    expected: '20',
  },
  {
    name: 'uses the LimitRange default when there is no limit',
    request: '1',
    recommended: '10',
    defaultLimit: '2',
    expected: '20',
  },
  {
    name: 'sets no limit when there was none',
    request: '1',
    recommended: '10',
    annotation: 'limit NOT set since originalLimit is nil or 0',
  },
  {
    name: 'limit but no request: limit = new request',
    limit: '2',
    recommended: '10',
    expected: '10',
  },
  {
    name: 'sets no limit without a recommended request',
    request: '1',
    recommended: '0',
    defaultLimit: '2',
    annotation: 'limit NOT set since recommendedRequest is nil or 0',
  },
  {
    name: 'limit equal to request: limit = new request',
    limit: '1',
    request: '1',
    recommended: '10',
    expected: '10',
  },
];

describe('proportionalLimit (vector 19)', () => {
  describe.each(['cpu', 'memory'])('%s', (resource) => {
    it.each(vector19)(
      '$name',
      ({ limit, request, recommended, defaultLimit, expected, annotation }) => {
        const result = proportionalLimit(
          resource,
          {
            limit: optional(limit),
            request: optional(request),
            defaultLimit: optional(defaultLimit),
          },
          optional(recommended),
        );
        expect(result.limit?.toString()).toBe(expected);
        expect(result.annotation).toBe(
          annotation && `${resource}: ${annotation}`,
        );
      },
    );
  });

  it('cpu: non-integer ratio rounds down in millicores (2 / 1.5 × 1 → 1333m)', () => {
    const result = proportionalLimit(
      'cpu',
      { limit: q('2'), request: q('1.50') },
      q('1'),
    );
    expect(result).toEqual({ limit: q('1333m') });
    expect(result.limit?.toString()).toBe('1333m');
  });

  it('memory: non-integer ratio rounds down in bytes (200 / 150 × 100 → 133)', () => {
    const result = proportionalLimit(
      'memory',
      { limit: q('200'), request: q('150') },
      q('100'),
    );
    expect(result.limit?.toString()).toBe('133');
  });

  it('cpu: overflow is capped to MaxInt64 millicores with the upstream annotation', () => {
    const result = proportionalLimit(
      'cpu',
      { limit: q('10G'), request: q('1m') },
      q('10G'),
    );
    expect(result.limit?.milliValue()).toBe(2n ** 63n - 1n);
    expect(result.limit?.toString()).toBe('9223372036854775807m');
    expect(result.annotation).toBe(
      'cpu: failed to keep limit to request ratio; capping limit to int64',
    );
  });

  it('memory: overflow is capped to MaxInt64 bytes (a 1m request counts as 1 byte)', () => {
    const result = proportionalLimit(
      'memory',
      { limit: q('10G'), request: q('1m') },
      q('10G'),
    );
    expect(result.limit?.value()).toBe(2n ** 63n - 1n);
    expect(result.annotation).toBe(
      'memory: failed to keep limit to request ratio; capping limit to int64',
    );
  });

  it('keeps the format of the original limit', () => {
    expect(
      proportionalLimit(
        'memory',
        { limit: q('2Gi'), request: q('1Gi') },
        q('3Gi'),
      ).limit?.toString(),
    ).toBe('6Gi');
    expect(
      proportionalLimit(
        'memory',
        { limit: q('2G'), request: q('1G') },
        q('3Gi'),
      ).limit?.toString(),
    ).toBe('6442450944');
  });

  it('prefers the container limit to the LimitRange default, and a zero limit counts as none', () => {
    expect(
      proportionalLimit(
        'cpu',
        { limit: q('3'), request: q('1'), defaultLimit: q('2') },
        q('1'),
      ).limit?.toString(),
    ).toBe('3');
    expect(
      proportionalLimit(
        'cpu',
        { limit: q('0'), request: q('1'), defaultLimit: q('2') },
        q('1'),
      ).limit?.toString(),
    ).toBe('2');
  });
});

describe('boundaryRequest', () => {
  it('is the request that puts the limit on the bound, keeping the ratio', () => {
    expect(
      boundaryRequest(
        'memory',
        { request: q('50M'), limit: q('600M') },
        q('500M'),
      )?.toString(),
    ).toBe('41666666');
    expect(
      boundaryRequest(
        'cpu',
        { request: q('1'), limit: q('3') },
        q('2'),
      )?.toString(),
    ).toBe('666m');
  });

  it('is the bound itself without a request, and nothing without a limit or a bound', () => {
    expect(boundaryRequest('cpu', { limit: q('3') }, q('2'))?.toString()).toBe(
      '2',
    );
    expect(boundaryRequest('cpu', { request: q('1') }, q('2'))).toBeUndefined();
    expect(
      boundaryRequest('cpu', { request: q('1'), limit: q('2') }, undefined),
    ).toBeUndefined();
    expect(
      boundaryRequest(
        'cpu',
        { request: q('1'), defaultLimit: q('4') },
        q('2'),
      )?.toString(),
    ).toBe('500m');
  });
});

import {
  apiResponseData,
  matrixSeries,
  PrometheusResponseError,
  vectorSamples,
} from './prometheus-response.js';

const matrix = (result: unknown) =>
  JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } });

describe('apiResponseData', () => {
  it('returns the data of a success answer', () =>
    expect(apiResponseData(200, matrix([]))).toEqual({
      resultType: 'matrix',
      result: [],
    }));

  it('reports an API error with its HTTP status, type and message', () =>
    expect(() =>
      apiResponseData(
        400,
        JSON.stringify({
          status: 'error',
          errorType: 'bad_data',
          error: 'invalid parameter "query": 1:5: parse error',
        }),
      ),
    ).toThrow(
      new PrometheusResponseError(
        'HTTP 400, bad_data: invalid parameter "query": 1:5: parse error',
      ),
    ));

  it('reports a non-JSON error page with its status and an excerpt', () =>
    expect(() =>
      apiResponseData(502, '<html>\n  <body>Bad Gateway</body>\n</html>'),
    ).toThrow(
      new PrometheusResponseError(
        'HTTP 502, not a Prometheus API answer: <html> <body>Bad Gateway</body> </html>',
      ),
    ));

  it('reports a 200 answer that is not JSON', () =>
    expect(() => apiResponseData(200, '{"status":"succ')).toThrow(
      new PrometheusResponseError(
        'HTTP 200, body is not JSON: {"status":"succ',
      ),
    ));

  it('reports a JSON error answer that is not Prometheus', () =>
    expect(() => apiResponseData(404, '{"message":"no route"}')).toThrow(
      new PrometheusResponseError('HTTP 404: {"message":"no route"}'),
    ));

  it('reports a 200 JSON answer without status and data', () =>
    expect(() => apiResponseData(200, '[]')).toThrow(
      new PrometheusResponseError(
        'answer has no status "success" with data: []',
      ),
    ));

  it('cuts long bodies in messages', () =>
    expect(() => apiResponseData(500, 'x'.repeat(1000))).toThrow(
      `HTTP 500, not a Prometheus API answer: ${'x'.repeat(200)}…`,
    ));
});

describe('matrixSeries', () => {
  it('reads labels and points, times in ms, NaN and infinities kept', () =>
    expect(
      matrixSeries({
        resultType: 'matrix',
        result: [
          {
            metric: { namespace: 'shop', pod_name: 'web-1', name: 'app' },
            values: [
              [1700000000, '0.25'],
              [1700000060.5, 'NaN'],
              [1700000120.001, '+Inf'],
              [1700000180, '-Inf'],
              [1700000240, '1e3'],
            ],
          },
        ],
      }),
    ).toEqual([
      {
        labels: { namespace: 'shop', pod_name: 'web-1', name: 'app' },
        points: [
          { timeMs: 1700000000000, value: 0.25 },
          { timeMs: 1700000060500, value: Number.NaN },
          { timeMs: 1700000120001, value: Number.POSITIVE_INFINITY },
          { timeMs: 1700000180000, value: Number.NEGATIVE_INFINITY },
          { timeMs: 1700000240000, value: 1000 },
        ],
      },
    ]));

  it.each([
    [{ resultType: 'matrix' }, 'data has no "result" array'],
    [null, 'data has no "result" array'],
    [
      { resultType: 'vector', result: [] },
      'expected a matrix result, got "vector" (an instant query needs a range selector such as [1h])',
    ],
    [
      { resultType: 'scalar', result: [] },
      'expected a matrix result, got "scalar"',
    ],
    [{ resultType: 'matrix', result: [7] }, 'series 0 is not an object'],
    [
      { resultType: 'matrix', result: [{ values: [] }] },
      'series 0: "metric" is not an object',
    ],
    [
      { resultType: 'matrix', result: [{ metric: { a: 1 }, values: [] }] },
      'series 0: label a is not a string',
    ],
    [
      { resultType: 'matrix', result: [{ metric: {} }] },
      'series 0: "values" is not an array',
    ],
    [
      {
        resultType: 'matrix',
        result: [
          { metric: {}, values: [] },
          { metric: {}, values: [[1, 2]] },
        ],
      },
      'series 1: point 0 is not [<unix seconds>, "<value>"]: [1,2]',
    ],
    [
      { resultType: 'matrix', result: [{ metric: {}, values: [['1', '2']] }] },
      'series 0: point 0 is not [<unix seconds>, "<value>"]: ["1","2"]',
    ],
    [
      { resultType: 'matrix', result: [{ metric: {}, values: [[1, 'lots']] }] },
      'series 0: point 0 is not [<unix seconds>, "<value>"]: [1,"lots"]',
    ],
    [
      { resultType: 'matrix', result: [{ metric: {}, values: [[1, '']] }] },
      'series 0: point 0 is not [<unix seconds>, "<value>"]: [1,""]',
    ],
    [
      { resultType: 'matrix', result: [{ metric: {}, values: [[1, '2', 3]] }] },
      'series 0: point 0 is not [<unix seconds>, "<value>"]: [1,"2",3]',
    ],
  ])('rejects %j precisely', (data, message) =>
    expect(() => matrixSeries(data)).toThrow(
      new PrometheusResponseError(message),
    ),
  );
});

describe('vectorSamples', () => {
  it('reads labels and values, NaN and infinities kept, the time dropped', () =>
    expect(
      vectorSamples({
        resultType: 'vector',
        result: [
          {
            metric: { pod: 'web-1', container: 'app' },
            value: [1700000000, '0.25'],
          },
          {
            metric: { pod: 'web-1', container: 'sidecar' },
            value: [1700000000.5, '1e3'],
          },
          { metric: {}, value: [1700000000, 'NaN'] },
          { metric: { pod: 'web-2' }, value: [1700000000, '+Inf'] },
          { metric: { pod: 'web-3' }, value: [1700000000, '-Inf'] },
        ],
      }),
    ).toEqual([
      { labels: { pod: 'web-1', container: 'app' }, value: 0.25 },
      { labels: { pod: 'web-1', container: 'sidecar' }, value: 1000 },
      { labels: {}, value: Number.NaN },
      { labels: { pod: 'web-2' }, value: Number.POSITIVE_INFINITY },
      { labels: { pod: 'web-3' }, value: Number.NEGATIVE_INFINITY },
    ]));

  it('reads an empty vector (no series matched)', () =>
    expect(vectorSamples({ resultType: 'vector', result: [] })).toEqual([]));

  it.each([
    [{ resultType: 'vector' }, 'data has no "result" array'],
    [null, 'data has no "result" array'],
    ['vector', 'data has no "result" array'],
    [
      { resultType: 'matrix', result: [] },
      'expected a vector result, got "matrix" (a range selector such as [5m] needs a function such as rate() to give an instant value)',
    ],
    [
      { resultType: 'scalar', result: [1700000000, '3'] },
      'expected a vector result, got "scalar" (the query yields one number, not labelled series)',
    ],
    [
      { resultType: 'string', result: [1700000000, 'x'] },
      'expected a vector result, got "string"',
    ],
    [
      { resultType: 'constructor', result: [] },
      'expected a vector result, got "constructor"',
    ],
    [{ result: [] }, 'expected a vector result, got undefined'],
    [{ resultType: 'vector', result: ['x'] }, 'sample 0 is not an object'],
    [
      { resultType: 'vector', result: [{ value: [1, '2'] }] },
      'sample 0: "metric" is not an object',
    ],
    [
      {
        resultType: 'vector',
        result: [{ metric: { pod: ['a'] }, value: [1, '2'] }],
      },
      'sample 0: label pod is not a string',
    ],
    [
      {
        resultType: 'vector',
        result: [
          { metric: {}, value: [1, '2'] },
          { metric: {}, histogram: [1, { count: '3', sum: '4' }] },
        ],
      },
      'sample 1: a native histogram, not a float value',
    ],
    [
      { resultType: 'vector', result: [{ metric: {} }] },
      'sample 0: "value" is not [<unix seconds>, "<value>"]: undefined',
    ],
    [
      { resultType: 'vector', result: [{ metric: {}, values: [[1, '2']] }] },
      'sample 0: "value" is not [<unix seconds>, "<value>"]: undefined',
    ],
    [
      { resultType: 'vector', result: [{ metric: {}, value: [1, 2] }] },
      'sample 0: "value" is not [<unix seconds>, "<value>"]: [1,2]',
    ],
    [
      { resultType: 'vector', result: [{ metric: {}, value: ['1', '2'] }] },
      'sample 0: "value" is not [<unix seconds>, "<value>"]: ["1","2"]',
    ],
    [
      { resultType: 'vector', result: [{ metric: {}, value: [1, 'lots'] }] },
      'sample 0: "value" is not [<unix seconds>, "<value>"]: [1,"lots"]',
    ],
    [
      { resultType: 'vector', result: [{ metric: {}, value: [1, '2', 3] }] },
      'sample 0: "value" is not [<unix seconds>, "<value>"]: [1,"2",3]',
    ],
  ])('rejects %j precisely', (data, message) =>
    expect(() => vectorSamples(data)).toThrow(
      new PrometheusResponseError(message),
    ),
  );
});

import {
  describeError,
  hasStatusCause,
  httpStatusOf,
  isGone,
} from './api-errors.js';

describe('API errors', () => {
  it('reads the status of an ApiException (code), a watch error (statusCode) and a Status', () => {
    expect(httpStatusOf(Object.assign(new Error('x'), { code: 409 }))).toBe(
      409,
    );
    expect(
      httpStatusOf(Object.assign(new Error('Gone'), { statusCode: 410 })),
    ).toBe(410);
    expect(httpStatusOf({ kind: 'Status', code: 410 })).toBe(410);
    expect(httpStatusOf(new Error('ECONNRESET'))).toBeUndefined();
    expect(httpStatusOf(null)).toBeUndefined();
    // AbortSignal.timeout() rejects with a DOMException whose legacy code is 23.
    expect(
      httpStatusOf(
        new DOMException(
          'The operation was aborted due to timeout',
          'TimeoutError',
        ),
      ),
    ).toBeUndefined();
  });

  it('recognizes 410 Gone', () => {
    expect(isGone({ code: 410 })).toBe(true);
    expect(isGone({ code: 500 })).toBe(false);
  });

  it('describes an error on one line with its status', () => {
    const error = Object.assign(new Error('HTTP-Code: 500\nMessage: boom'), {
      code: 500,
    });
    expect(describeError(error)).toBe('HTTP 500: HTTP-Code: 500');
    expect(describeError('plain')).toBe('plain');
  });

  it("tells the API server's own reason and message, from a raw or parsed Status body", () => {
    const status = {
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      message:
        'verticalpodautoscalercheckpoints.autoscaling.k8s.io "web-app" is forbidden: checkpoints are frozen',
      code: 422,
    };
    for (const body of [status, JSON.stringify(status)]) {
      const error = Object.assign(new Error('HTTP-Code: 422\nMessage: x'), {
        code: 422,
        body,
      });
      expect(describeError(error)).toBe(
        'HTTP 422 Invalid: verticalpodautoscalercheckpoints.autoscaling.k8s.io "web-app" is forbidden: checkpoints are frozen',
      );
    }
    const proxyPage = Object.assign(new Error('HTTP-Code: 503\nMessage: x'), {
      code: 503,
      body: '<html>service unavailable</html>',
    });
    expect(describeError(proxyPage)).toBe('HTTP 503: HTTP-Code: 503');
  });
});

describe('hasStatusCause', () => {
  const refused = {
    code: 403,
    body: JSON.stringify({
      kind: 'Status',
      message: 'pod resize is infeasible',
      details: { causes: [{ type: 'NodeCapacity', message: 'cpu' }] },
    }),
  };

  it('finds a cause type in a raw or parsed Status body', () => {
    expect(hasStatusCause(refused, 'NodeCapacity')).toBe(true);
    expect(
      hasStatusCause({ body: JSON.parse(refused.body) }, 'NodeCapacity'),
    ).toBe(true);
  });

  it('is false for other causes, bodies that are no Status, and no error at all', () => {
    expect(hasStatusCause(refused, 'FieldValueInvalid')).toBe(false);
    expect(hasStatusCause({ body: 'not json' }, 'NodeCapacity')).toBe(false);
    expect(hasStatusCause(undefined, 'NodeCapacity')).toBe(false);
  });
});

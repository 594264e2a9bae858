import { admit } from './admit.js';
import { contextWith, review } from './admission.fixtures.js';

describe('admit: the review envelope', () => {
  it.each([
    [null, 'malformed review: body must be a JSON object, got null'],
    [[], 'malformed review: body must be a JSON object, got []'],
    [
      { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview' },
      'malformed review: apiVersion must be "admission.k8s.io/v1", got "admission.k8s.io/v1beta1"',
    ],
    [
      { apiVersion: 'admission.k8s.io/v1', kind: 'Review' },
      'malformed review: kind must be "AdmissionReview", got "Review"',
    ],
    [
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' },
      'malformed review: request missing',
    ],
    [
      {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: 'x',
      },
      'malformed review: request must be an object, got "x"',
    ],
    [
      {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {},
      },
      'malformed review: request.uid missing',
    ],
    [
      {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: '' },
      },
      'malformed review: request.uid must be a non-empty string, got ""',
    ],
  ])('%j → 400', async (body, message) => {
    const result = await admit(body, contextWith());
    expect(result).toEqual({
      review: undefined,
      httpStatus: 400,
      resource: 'unknown',
      outcome: 'error',
      message,
    });
  });

  it('cuts long values short in messages', async () => {
    const result = await admit(
      { apiVersion: 'x'.repeat(500), kind: 'AdmissionReview' },
      contextWith(),
    );
    expect(result.message.length).toBeLessThan(200);
    expect(result.message).toMatch(/…$/);
  });

  it('survives a body whose fields throw when read', async () => {
    const body = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    const result = await admit(body, contextWith());
    expect(result).toMatchObject({
      httpStatus: 400,
      message: 'malformed review: unreadable (boom)',
    });
  });

  it('allows any other resource unchanged', async () => {
    const result = await admit(
      review({
        operation: 'CREATE',
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        object: {},
      }),
      contextWith(),
    );
    expect(result).toMatchObject({
      httpStatus: 200,
      resource: 'unknown',
      outcome: 'skipped',
      message: 'not a pod or VPA (apps/v1 deployments), allowed unchanged',
    });
    expect(result.review).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'uid-1', allowed: true },
    });
  });

  it('answers a request with a uid but nothing else, allowing it', async () => {
    const result = await admit(review({}), contextWith());
    expect(result).toMatchObject({
      httpStatus: 200,
      resource: 'unknown',
      outcome: 'skipped',
    });
    expect(result.review?.response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('fails open when the feature gates cannot be read', async () => {
    const context = contextWith();
    Object.defineProperty(context, 'featureGates', {
      get() {
        throw new Error('gates unavailable');
      },
    });
    const result = await admit(
      review({
        operation: 'CREATE',
        resource: {
          group: 'autoscaling.k8s.io',
          version: 'v1',
          resource: 'verticalpodautoscalers',
        },
        object: {},
      }),
      context,
    );
    expect(result).toMatchObject({
      resource: 'VPA',
      outcome: 'error',
      message: 'internal error, allowed unchanged: gates unavailable',
    });
    expect(result.review?.response).toEqual({
      uid: 'uid-1',
      allowed: true,
      warnings: [
        'VPA webhook: internal error, allowed unchanged: gates unavailable',
      ],
    });
  });
});

import {
  apiStatus,
  sendJson,
  startFakeApiServer,
  type FakeApiServer,
} from './fake-api-server.fixtures.js';
import {
  TOKEN_REVIEW_RATE,
  tokenReviewer,
  TokenReviewsThrottled,
} from './token-review.js';

let api: FakeApiServer;
let nowMs = 0;
let down = false;

beforeAll(async () => {
  api = await startFakeApiServer((request, response) => {
    if (down)
      return sendJson(
        response,
        403,
        apiStatus(
          403,
          'Forbidden',
          'tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:tandem:metrics-adapter" cannot create resource "tokenreviews"',
        ),
      );
    const token = (request.body as { spec: { token: string } }).spec.token;
    sendJson(response, 201, {
      ...(request.body as object),
      status:
        token === 'good-token'
          ? {
              authenticated: true,
              user: {
                username: 'system:serviceaccount:shop:reader',
                uid: 'u-1',
                groups: ['system:serviceaccounts', 'system:authenticated'],
                extra: { 'authentication.kubernetes.io/pod-name': ['p'] },
              },
            }
          : { authenticated: false, error: 'invalid bearer token' },
    });
  });
});

afterAll(() => api.close());

beforeEach(() => {
  api.requests.length = 0;
  down = false;
});

const review = () => tokenReviewer(api.connection, { now: () => nowMs });

describe('tokenReviewer', () => {
  it('posts a TokenReview with the adapter credentials and reads the user', async () => {
    const result = await review()('good-token');
    expect(result).toEqual({
      ok: true,
      caller: {
        user: 'system:serviceaccount:shop:reader',
        uid: 'u-1',
        groups: ['system:serviceaccounts', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/pod-name': ['p'] },
        via: 'token',
      },
    });
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token: 'good-token' },
      },
    });
    expect(api.requests[0]?.headers.authorization).toBe('Bearer adapter-token');
  });

  it('caches both outcomes for 10 s', async () => {
    const reviewToken = review();
    expect(await reviewToken('bad-token')).toEqual({
      ok: false,
      reason: 'TokenReview: invalid bearer token',
    });
    await reviewToken('bad-token');
    await reviewToken('good-token');
    await reviewToken('good-token');
    expect(api.requests).toHaveLength(2);
    nowMs += 10_000;
    await reviewToken('good-token');
    expect(api.requests).toHaveLength(3);
  });

  it('rejects when the review cannot be made, without the token in the message', async () => {
    down = true;
    const reviewToken = review();
    const failure = reviewToken('secret-token');
    await expect(failure).rejects.toThrow(
      /^TokenReview failed: HTTP 403.*cannot create resource "tokenreviews"/,
    );
    await expect(failure).rejects.not.toThrow(/secret-token/);
    down = false;
    // Not cached: the next request asks again.
    expect((await reviewToken('secret-token')).ok).toBe(false);
    expect(api.requests).toHaveLength(2);
  });

  it('reviews at most the budget of new tokens, while cached ones still answer', async () => {
    const reviewToken = review();
    await reviewToken('good-token');
    const randoms = Array.from(
      { length: TOKEN_REVIEW_RATE.burst + 5 },
      (_, i) => `random-${nowMs}-${i}`,
    );
    const outcomes = await Promise.allSettled(randoms.map(reviewToken));
    const throttled = outcomes.filter(
      (outcome) =>
        outcome.status === 'rejected' &&
        outcome.reason instanceof TokenReviewsThrottled,
    );
    // The burst, less the one good-token spent, reached the API server; the rest did not.
    expect(api.requests).toHaveLength(TOKEN_REVIEW_RATE.burst);
    expect(throttled).toHaveLength(6);
    expect((await reviewToken('good-token')).ok).toBe(true);
    expect(api.requests).toHaveLength(TOKEN_REVIEW_RATE.burst);
    // A throttled token is not cached as bad: once the budget refills it is reviewed.
    nowMs += 1_000;
    const retried = randoms.at(-1) ?? '';
    expect(await reviewToken(retried)).toEqual({
      ok: false,
      reason: 'TokenReview: invalid bearer token',
    });
    expect(api.requests).toHaveLength(TOKEN_REVIEW_RATE.burst + 1);
  });
});

import type { Strategy } from '@tandem/strategies';

/** A series the static baseline cannot replay: it has no declared size. */
export class MissingDeclaredSizeError extends Error {
  override name = 'MissingDeclaredSizeError';
}

/**
 * The baseline every recommender is measured against: the sizes the user declared, as they
 * were at each moment (replay only; a live VPA has nothing to recommend this way).
 */
export const staticBaseline: Strategy = {
  name: 'static',
  parameters: {},
  model: () => ({
    addUsage: () => undefined,
    recordOom: () => undefined,
    recommend(timeMs, declared) {
      if (declared === undefined)
        throw new MissingDeclaredSizeError(
          `the static baseline needs declared sizes (a capacity file) for every series; none at ${new Date(timeMs).toISOString()}`,
        );
      return { target: declared, lowerBound: declared, upperBound: declared };
    },
  }),
};

import fc from 'fast-check';
import { STRATEGIES } from './registry.js';
import {
  containerStrategy,
  STRATEGY_ANNOTATION,
  vpaStrategy,
} from './vpa-strategy.js';

const HOUR = 3_600_000;

function strategyOf(...args: Parameters<typeof vpaStrategy>) {
  const result = vpaStrategy(...args);
  if ('error' in result) throw new Error(result.error);
  return result.strategy;
}

describe('vpaStrategy', () => {
  it('gives the default strategy, at its fallbacks, to a VPA without annotations', () => {
    const strategy = strategyOf(undefined, 'upstream');
    expect(strategy.name).toBe('upstream');
    expect(strategy.parameters['margin']).toBe(0.15);
    expect(strategyOf({ other: 'x' }, 'autopilot').name).toBe('autopilot');
  });

  it('reads the named strategy and its parameters from tandem.dev annotations', () => {
    const strategy = strategyOf(
      {
        [STRATEGY_ANNOTATION]: 'autopilot',
        'tandem.dev/cpu-half-life': '6h',
        'tandem.dev/margin': '0.1',
      },
      'upstream',
    );
    expect(strategy.name).toBe('autopilot');
    expect(strategy.parameters['cpu-half-life']).toBe(6 * HOUR);
    expect(strategy.parameters['margin']).toBe(0.1);
  });

  it('lets the flags replace the fallbacks, and annotations the flags', () => {
    const fallbacks = {
      margin: 0.3,
      'target-cpu-percentile': 0.95,
      'oom-bump-up-ratio': 1.5,
    };
    expect(strategyOf({}, 'upstream', fallbacks).parameters).toMatchObject(
      fallbacks,
    );
    expect(
      strategyOf(
        { [STRATEGY_ANNOTATION]: 'autopilot', 'tandem.dev/margin': '0' },
        'upstream',
        fallbacks,
      ).parameters,
    ).toMatchObject({ margin: 0, 'oom-bump-up-ratio': 1.5 });
    // tandem keeps its own percentiles and margin (ownFallback), takes the OOM bump-up flag.
    expect(
      strategyOf({ [STRATEGY_ANNOTATION]: 'tandem' }, 'upstream', fallbacks)
        .parameters,
    ).toMatchObject({
      margin: 0.05,
      'target-cpu-percentile': 0.75,
      'oom-bump-up-ratio': 1.5,
    });
    // vivo has neither knob: the flags do not reach it.
    expect(
      strategyOf({ [STRATEGY_ANNOTATION]: 'vivo' }, 'upstream', fallbacks)
        .parameters,
    ).not.toHaveProperty('margin');
  });

  it.each([
    [
      { [STRATEGY_ANNOTATION]: 'autopilto' },
      "metadata.annotations[tandem.dev/strategy]: unknown strategy 'autopilto': choose one of upstream, autopilot, vivo, tandem",
    ],
    [
      { [STRATEGY_ANNOTATION]: 'upstream', 'tandem.dev/cpu-half-life': '6h' },
      "metadata.annotations[tandem.dev/cpu-half-life]: strategy 'upstream' has no parameter 'cpu-half-life' (it has target-cpu-percentile, target-memory-percentile, margin, oom-bump-up-ratio, oom-min-bump-up)",
    ],
    [
      { [STRATEGY_ANNOTATION]: 'upstream', 'tandem.dev/margin': 'lots' },
      "metadata.annotations[tandem.dev/margin]: strategy 'upstream' parameter 'margin': 'lots' is not a number",
    ],
    [
      { 'tandem.dev/margin': '0.1' },
      'metadata.annotations[tandem.dev/margin]: a parameter needs tandem.dev/strategy naming the strategy it belongs to',
    ],
  ])(
    'refuses %j with a message naming the annotation',
    (annotations, error) => {
      const [, field, reason] =
        /^(metadata\.annotations\[[^\]]+\]): (.*)$/s.exec(error) ?? [];
      expect(field).toBeDefined();
      expect(vpaStrategy(annotations, 'upstream')).toEqual({
        error,
        field,
        reason,
      });
    },
  );

  it('names a flag out of a strategy range as the flags', () => {
    const reason =
      "strategy 'upstream' parameter 'margin': '20' is out of range: it must be from 0 to 10";
    expect(vpaStrategy({}, 'upstream', { margin: 20 })).toEqual({
      error: `recommender flags: ${reason}`,
      field: undefined,
      reason,
    });
  });

  it('never throws, and accepts exactly the names of the registry', () => {
    const names = STRATEGIES.map((strategy) => strategy.name);
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.oneof(
            fc.constantFrom(STRATEGY_ANNOTATION, 'tandem.dev/margin'),
            fc.string(),
          ),
          fc.oneof(fc.constantFrom(...names, '0.2'), fc.string()),
        ),
        (annotations) => {
          const result = vpaStrategy(annotations, 'upstream');
          const named = annotations[STRATEGY_ANNOTATION];
          if (named !== undefined && !names.includes(named))
            expect(result).toHaveProperty('error');
        },
      ),
    );
  });
});

describe('containerStrategy', () => {
  const strategy = strategyOf(
    { [STRATEGY_ANNOTATION]: 'upstream', 'tandem.dev/oom-bump-up-ratio': '2' },
    'upstream',
  );
  const policy = {
    containerName: 'app',
    oomBumpUpRatio: '1500m',
    oomMinBumpUp: '1Gi',
  };

  it("lets upstream's PerVPAConfig fields win over the annotation, with the gate", () => {
    expect(containerStrategy(strategy, policy, true).parameters).toMatchObject({
      'oom-bump-up-ratio': 1.5,
      'oom-min-bump-up': 2 ** 30,
      margin: 0.15,
    });
  });

  it('keeps the annotation without the gate, without a policy, or for a strategy without the knob', () => {
    expect(containerStrategy(strategy, policy, false)).toBe(strategy);
    expect(containerStrategy(strategy, undefined, true)).toBe(strategy);
    const vivo = strategyOf({ [STRATEGY_ANNOTATION]: 'vivo' }, 'upstream');
    expect(containerStrategy(vivo, policy, true)).toBe(vivo);
  });
});

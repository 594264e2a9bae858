import { autopilot } from './autopilot.js';
import { configureStrategy, type StrategyDefinition } from './definition.js';
import { readParameters, type ParameterSpecs } from './parameters.js';
import {
  DEFAULT_STRATEGY,
  STRATEGIES,
  strategyDefinition,
} from './registry.js';
import { upstream } from './upstream.js';
import { vivo } from './vivo.js';

const HOUR = 3_600_000;
const MIB = 1024 * 1024;

/** One parameter of each kind, with ranges small enough to read in a message. */
const SPECS: ParameterSpecs = {
  ratio: { kind: 'number', fallback: 0.5, min: 0, max: 2, summary: '' },
  window: {
    kind: 'duration',
    fallback: 12 * HOUR,
    min: HOUR,
    max: 48 * HOUR,
    summary: '',
  },
  floor: {
    kind: 'memory',
    fallback: 100 * MIB,
    min: 0,
    max: 1024 * MIB,
    summary: '',
  },
  enabled: { kind: 'boolean', fallback: false, summary: '' },
};

function read(texts: Record<string, string>) {
  return readParameters('demo', SPECS, texts);
}

describe('readParameters', () => {
  it('fills every parameter with its fallback when none is given', () => {
    expect(read({})).toEqual({
      values: {
        ratio: 0.5,
        window: 12 * HOUR,
        floor: 100 * MIB,
        enabled: false,
      },
    });
  });

  it.each([
    [{ ratio: '1.25' }, { ratio: 1.25 }],
    [{ ratio: '0' }, { ratio: 0 }],
    [{ ratio: '2' }, { ratio: 2 }],
    [{ window: '1h30m' }, { window: 1.5 * HOUR }],
    [{ window: '90m' }, { window: 1.5 * HOUR }],
    [{ window: '48h' }, { window: 48 * HOUR }],
    [{ floor: '100Mi' }, { floor: 100 * MIB }],
    [{ floor: '1G' }, { floor: 1e9 }],
    [{ floor: '0' }, { floor: 0 }],
    [{ enabled: 'true' }, { enabled: true }],
    [{ enabled: 'false' }, { enabled: false }],
  ])('reads %j of its kind, keeping the other fallbacks', (texts, parsed) => {
    expect(read(texts)).toEqual({
      values: {
        ratio: 0.5,
        window: 12 * HOUR,
        floor: 100 * MIB,
        enabled: false,
        ...parsed,
      },
    });
  });

  it.each([
    [{ ratio: 'abc' }, "parameter 'ratio': 'abc' is not a number"],
    [{ ratio: '' }, "parameter 'ratio': '' is not a number"],
    [{ ratio: '1e0' }, "parameter 'ratio': '1e0' is not a number"],
    [{ ratio: '.5' }, "parameter 'ratio': '.5' is not a number"],
    [{ ratio: ' 1' }, "parameter 'ratio': ' 1' is not a number"],
    [
      { ratio: '-0.1' },
      "parameter 'ratio': '-0.1' is out of range: it must be from 0 to 2",
    ],
    [
      { ratio: '2.01' },
      "parameter 'ratio': '2.01' is out of range: it must be from 0 to 2",
    ],
    [
      { window: 'soon' },
      "parameter 'window': 'soon' is not a duration such as 12h or 90m",
    ],
    [
      { window: '12' },
      "parameter 'window': '12' is not a duration such as 12h or 90m",
    ],
    [
      { window: '0h' },
      "parameter 'window': '0h' is not a duration such as 12h or 90m",
    ],
    [
      { window: '59m' },
      "parameter 'window': '59m' is out of range: it must be from 1h to 48h",
    ],
    [
      { window: '48h1ms' },
      "parameter 'window': '48h1ms' is out of range: it must be from 1h to 48h",
    ],
    [
      { floor: 'lots' },
      "parameter 'floor': 'lots' is not a memory quantity such as 100Mi",
    ],
    [
      { floor: '-1' },
      "parameter 'floor': '-1' is out of range: it must be from 0 bytes to 1073741824 bytes",
    ],
    [
      { floor: '1025Mi' },
      "parameter 'floor': '1025Mi' is out of range: it must be from 0 bytes to 1073741824 bytes",
    ],
    [{ enabled: 'yes' }, "parameter 'enabled': 'yes' is not true or false"],
    [{ enabled: 'True' }, "parameter 'enabled': 'True' is not true or false"],
  ])('rejects %j with a precise message', (texts, message) => {
    expect(read(texts)).toEqual({ error: `strategy 'demo' ${message}` });
  });

  it('names an unknown parameter and the ones that exist', () => {
    expect(read({ ratio: '1', windw: '1h' })).toEqual({
      error:
        "strategy 'demo' has no parameter 'windw' (it has ratio, window, floor, enabled)",
    });
    expect(readParameters('bare', {}, { x: '1' })).toEqual({
      error: "strategy 'bare' has no parameter 'x' (it takes none)",
    });
  });

  it('rejects names inherited from Object.prototype', () => {
    expect(read({ toString: '1' })).toEqual({
      error:
        "strategy 'demo' has no parameter 'toString' (it has ratio, window, floor, enabled)",
    });
  });
});

describe('configureStrategy', () => {
  it.each<[StrategyDefinition, Record<string, number | boolean>]>([
    [
      upstream,
      {
        'target-cpu-percentile': 0.9,
        'target-memory-percentile': 0.9,
        margin: 0.15,
        'oom-bump-up-ratio': 1.2,
        'oom-min-bump-up': 100 * MIB,
      },
    ],
    [
      autopilot,
      {
        'cpu-percentile': 0.95,
        'cpu-half-life': 12 * HOUR,
        'memory-half-life': 48 * HOUR,
        margin: 0.15,
        'oom-bump-up-ratio': 1.2,
        'oom-min-bump-up': 100 * MIB,
      },
    ],
    [
      vivo,
      { coefficient: 0.5, multiplier: 1, memory: false, history: 24 * HOUR },
    ],
  ])('configures %s with its documented defaults', (definition, defaults) => {
    const configured = configureStrategy(definition);
    if ('error' in configured) throw new Error(configured.error);
    expect(configured.strategy.name).toBe(definition.name);
    expect(configured.strategy.parameters).toEqual(defaults);
    expect(Object.keys(definition.parameters)).toEqual(Object.keys(defaults));
  });

  it.each<
    [
      StrategyDefinition,
      Record<string, string>,
      Record<string, number | boolean>,
    ]
  >([
    [
      upstream,
      { 'target-cpu-percentile': '0.95', 'oom-min-bump-up': '200Mi' },
      { 'target-cpu-percentile': 0.95, 'oom-min-bump-up': 200 * MIB },
    ],
    [
      autopilot,
      { 'cpu-half-life': '6h', margin: '0.1' },
      { 'cpu-half-life': 6 * HOUR, margin: 0.1 },
    ],
    [
      vivo,
      { memory: 'true', multiplier: '1.5', history: '36h' },
      { memory: true, multiplier: 1.5, history: 36 * HOUR },
    ],
  ])(
    'configures %s with parameters given as text',
    (definition, texts, set) => {
      const configured = configureStrategy(definition, texts);
      if ('error' in configured) throw new Error(configured.error);
      const defaults = configureStrategy(definition);
      if ('error' in defaults) throw new Error(defaults.error);
      expect(configured.strategy.parameters).toEqual({
        ...defaults.strategy.parameters,
        ...set,
      });
    },
  );

  it.each<[StrategyDefinition, Record<string, string>, string]>([
    [
      upstream,
      { 'target-cpu-percentile': '1.5' },
      "strategy 'upstream' parameter 'target-cpu-percentile': '1.5' is out of range: it must be from 0 to 1",
    ],
    [
      upstream,
      { 'oom-bump-up-ratio': '0.9' },
      "strategy 'upstream' parameter 'oom-bump-up-ratio': '0.9' is out of range: it must be from 1 to 100",
    ],
    [
      autopilot,
      { 'memory-half-life': '400d' },
      "strategy 'autopilot' parameter 'memory-half-life': '400d' is not a duration such as 12h or 90m",
    ],
    [
      autopilot,
      { 'memory-half-life': '8761h' },
      "strategy 'autopilot' parameter 'memory-half-life': '8761h' is out of range: it must be from 1m to 8760h",
    ],
    [
      autopilot,
      { percentile: '0.9' },
      "strategy 'autopilot' has no parameter 'percentile' (it has cpu-percentile, cpu-half-life, memory-half-life, margin, oom-bump-up-ratio, oom-min-bump-up)",
    ],
    [
      vivo,
      { coefficient: '0' },
      "strategy 'vivo' parameter 'coefficient': '0' is out of range: it must be from 0.01 to 1",
    ],
    [
      vivo,
      { memory: '1' },
      "strategy 'vivo' parameter 'memory': '1' is not true or false",
    ],
  ])(
    'refuses a bad parameter of %s, never throwing',
    (definition, texts, error) => {
      expect(configureStrategy(definition, texts)).toEqual({ error });
    },
  );
});

describe('the registry', () => {
  const names = STRATEGIES.map((definition) => definition.name);

  it('lists upstream, autopilot and vivo first, upstream being the default', () => {
    expect(names.slice(0, 3)).toEqual(['upstream', 'autopilot', 'vivo']);
    expect(new Set(names).size).toBe(names.length);
    expect(DEFAULT_STRATEGY).toBe('upstream');
  });

  it('finds every strategy by its name', () => {
    for (const definition of STRATEGIES)
      expect(strategyDefinition(definition.name)).toEqual({ definition });
    expect(strategyDefinition('vivo')).toEqual({ definition: vivo });
  });

  it('names the strategies that exist for an unknown one', () => {
    expect(strategyDefinition('Vivo')).toEqual({
      error: `unknown strategy 'Vivo': choose one of ${names.join(', ')}`,
    });
    expect(names.join(', ')).toMatch(/^upstream, autopilot, vivo\b/);
  });
});

import { oomBumpedMemory, toResourceAmount } from '@tandem/estimators';
import {
  CPU_HISTOGRAM_OPTIONS,
  DecayingHistogram,
  MIN_SAMPLE_WEIGHT,
} from '@tandem/histogram';
import { CONTAINER_MINIMUM, plusMargin, withUpdateBand } from './band.js';
import {
  halfLifeParameter,
  MARGIN_PARAMETER,
  OOM_PARAMETERS,
  oomSettings,
  percentileParameter,
  type OomSettings,
} from './common-parameters.js';
import { DecayedMax } from './decayed-max.js';
import type { StrategyDefinition } from './definition.js';
import { numberParameter, type ParameterValues } from './parameters.js';
import type { StrategyRecommendation, UsageModel } from './strategy.js';

/**
 * Google Autopilot's moving-window recommenders (Rzadca et al., EuroSys 2020): CPU from a
 * percentile of a decaying usage histogram, memory from the decayed maximum of the usage,
 * both rising at once and falling slowly. Half-lives as the paper gives them for its
 * moving windows: 12 h for CPU, 48 h for memory.
 */
export const autopilot: StrategyDefinition = {
  name: 'autopilot',
  summary:
    "Autopilot's moving windows: p95 of a 12 h decaying CPU histogram, decayed max of memory (48 h), +15 %",
  parameters: {
    'cpu-percentile': percentileParameter(0.95, 'decaying CPU histogram'),
    'cpu-half-life': halfLifeParameter(12, 'CPU histogram'),
    'memory-half-life': halfLifeParameter(48, 'memory maximum'),
    margin: MARGIN_PARAMETER,
    ...OOM_PARAMETERS,
  },
  create: (values) => ({
    name: 'autopilot',
    parameters: values,
    model: () => new AutopilotModel(values),
  }),
};

class AutopilotModel implements UsageModel {
  private readonly cpu: DecayingHistogram;
  private readonly memory: DecayedMax;
  private readonly cpuPercentile: number;
  private readonly margin: number;
  private readonly oom: OomSettings;
  private lastMemoryBytes = 0;

  constructor(values: ParameterValues) {
    this.cpu = new DecayingHistogram(
      CPU_HISTOGRAM_OPTIONS,
      numberParameter(values, 'cpu-half-life'),
    );
    this.memory = new DecayedMax(numberParameter(values, 'memory-half-life'));
    this.cpuPercentile = numberParameter(values, 'cpu-percentile');
    this.margin = numberParameter(values, 'margin');
    this.oom = oomSettings(values);
  }

  addUsage(timeMs: number, cpuMillicores: number, memoryBytes: number): void {
    this.cpu.addSample(cpuMillicores / 1000, MIN_SAMPLE_WEIGHT, timeMs);
    this.memory.add(timeMs, memoryBytes);
    this.lastMemoryBytes = memoryBytes;
  }

  recordOom(timeMs: number, requestedMemoryBytes: number): void {
    this.memory.add(
      timeMs,
      oomBumpedMemory(
        Math.max(requestedMemoryBytes, this.lastMemoryBytes),
        this.oom,
      ),
    );
  }

  recommend(timeMs: number): StrategyRecommendation {
    return withUpdateBand({
      cpu: Math.max(
        plusMargin(
          toResourceAmount(this.cpu.percentile(this.cpuPercentile) * 1000),
          this.margin,
        ),
        CONTAINER_MINIMUM.cpu,
      ),
      memory: Math.max(
        plusMargin(toResourceAmount(this.memory.at(timeMs)), this.margin),
        CONTAINER_MINIMUM.memory,
      ),
    });
  }
}

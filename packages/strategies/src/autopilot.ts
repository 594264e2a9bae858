import { oomBumpedMemory, toResourceAmount } from '@tandem/estimators';
import {
  CheckpointError,
  CPU_HISTOGRAM_OPTIONS,
  DecayingHistogram,
  MIN_SAMPLE_WEIGHT,
  type HistogramCheckpoint,
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
import { DecayedMax, type DecayedMaxSaved } from './decayed-max.js';
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

/** What an {@link AutopilotModel} keeps, as JSON (the live recommender checkpoints it). */
export interface AutopilotSaved {
  readonly cpuHistogram: HistogramCheckpoint;
  readonly memoryMax: DecayedMaxSaved;
  readonly lastMemoryBytes: number;
}

/**
 * One container under autopilot. The live recommender feeds CPU and memory separately (its
 * samples arrive so), `tandem replay` through {@link addUsage}.
 */
export class AutopilotModel implements UsageModel {
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
    this.addCpu(timeMs, cpuMillicores);
    this.addMemory(timeMs, memoryBytes);
  }

  addCpu(timeMs: number, cpuMillicores: number): void {
    this.cpu.addSample(cpuMillicores / 1000, MIN_SAMPLE_WEIGHT, timeMs);
  }

  addMemory(timeMs: number, memoryBytes: number): void {
    this.memory.add(timeMs, memoryBytes);
    this.lastMemoryBytes = memoryBytes;
  }

  save(): AutopilotSaved {
    return {
      cpuHistogram: this.cpu.saveCheckpoint(),
      memoryMax: this.memory.save(),
      lastMemoryBytes: this.lastMemoryBytes,
    };
  }

  /**
   * The model `save` wrote, under these parameter values; a CheckpointError naming the bad
   * field otherwise. The CPU histogram comes back as upstream's checkpoint codec stores it.
   */
  static restore(values: ParameterValues, saved: unknown): AutopilotModel {
    if (typeof saved !== 'object' || saved === null)
      throw new CheckpointError('', 'autopilot state is not an object');
    const fields = saved as Partial<Record<keyof AutopilotSaved, unknown>>;
    const model = new AutopilotModel(values);
    try {
      model.cpu.loadCheckpoint(fields.cpuHistogram);
    } catch (error) {
      throw error instanceof CheckpointError
        ? error.within('cpuHistogram')
        : error;
    }
    model.memory.restore(fields.memoryMax);
    const last = fields.lastMemoryBytes;
    if (typeof last !== 'number' || !Number.isSafeInteger(last) || last < 0)
      throw new CheckpointError(
        'lastMemoryBytes',
        `must be whole bytes >= 0, got ${JSON.stringify(last)}`,
      );
    model.lastMemoryBytes = last;
    return model;
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

import type { AggregateContainerState } from '@tandem/estimators';
import {
  ContainerScalingMode,
  getContainerPolicy,
  type LabelSelectorMatcher,
  parseCpuMillicores,
  parseMemoryBytes,
  type RecommendedContainerResources,
} from '@tandem/vpa-api';
import type { ClusterModel, TrackedVpa } from '../model/index.js';
import type { QualityMetrics } from '../recommender-metrics.js';
import type { HistogramSeries } from '../series-histogram.js';

/**
 * An uncapped target as upstream's quality metrics read it: CPU as `MilliValue()`, memory as
 * `Value()` (both rounded up); 0 for a resource it does not hold. The texts are kept so an
 * unchanged recommendation is not parsed again.
 */
interface LastRecommendation {
  readonly cpuText: string | undefined;
  readonly cpuMillicores: number;
  readonly memoryText: string | undefined;
  readonly memoryBytes: number;
}

/**
 * What upstream keeps on an aggregate for the quality metrics (`IsUnderVPA`, `UpdateMode`,
 * `ScalingMode`, `lastRecommendation`), for one aggregate a VPA selects.
 */
export interface QualityLink {
  /**
   * The compiled selector of the VPA that links the aggregate. Upstream forgets the last
   * recommendations of a VPA's aggregates when the VPA goes away or its selector changes
   * (it re-creates the VPA); a new selector object stands for both.
   */
  readonly selector: LabelSelectorMatcher;
  /** Upstream's `NeedsRecommendation`: false when the container's scaling mode is Off. */
  readonly observed: boolean;
  readonly series: ModeSeries;
  /** The uncapped target last computed for the aggregate's container; undefined before the first. */
  last: LastRecommendation | undefined;
}

/** A term's links, by the model's aggregates: rebuilt every cycle, so unlinked ones drop out. */
export type QualityLinks = Map<AggregateContainerState, QualityLink>;

interface ResourceSeries {
  /** `…_recommendations_…`, for samples with a recommendation. */
  readonly recommendation: HistogramSeries;
  /** The absolute differences: recommendation above usage, or not; with a recommendation and without. */
  readonly over: HistogramSeries;
  readonly lowerEqual: HistogramSeries;
  readonly missingOver: HistogramSeries;
  readonly missingLowerEqual: HistogramSeries;
  readonly relative: HistogramSeries;
  /** The labels of `usage_sample_missing_recommendation_count` (a prom-client counter). */
  readonly missingLabels: {
    update_mode: string;
    resource: string;
    is_oom: string;
  };
}

/** The series an update mode's samples go to, resolved once a cycle: a sample hashes no labels. */
interface ModeSeries {
  readonly cpu: ResourceSeries;
  readonly memory: ResourceSeries;
  /** An OOM kill's memory sample (upstream's `is_oom="true"` series). */
  readonly oomMemory: ResourceSeries;
}

function modeSeries(metrics: QualityMetrics, update_mode: string): ModeSeries {
  const present = { update_mode, recommendation_missing: 'false' };
  const missing = { update_mode, recommendation_missing: 'true' };
  const cpuLabels = { update_mode, resource: 'cpu', is_oom: 'false' };
  return {
    cpu: {
      recommendation: metrics.cpuRecommendations.series({ update_mode }),
      over: metrics.cpuRecommendationOverUsageDiffs.series(present),
      lowerEqual: metrics.cpuRecommendationLowerEqualUsageDiffs.series(present),
      missingOver: metrics.cpuRecommendationOverUsageDiffs.series(missing),
      missingLowerEqual:
        metrics.cpuRecommendationLowerEqualUsageDiffs.series(missing),
      relative: metrics.usageRecommendationRelativeDiffs.series(cpuLabels),
      missingLabels: cpuLabels,
    },
    memory: memorySeries(metrics, update_mode, 'false'),
    oomMemory: memorySeries(metrics, update_mode, 'true'),
  };
}

function memorySeries(
  metrics: QualityMetrics,
  update_mode: string,
  is_oom: string,
): ResourceSeries {
  const memoryLabels = { update_mode, resource: 'memory', is_oom };
  const memoryPresent = {
    update_mode,
    recommendation_missing: 'false',
    is_oom,
  };
  const memoryMissing = { update_mode, recommendation_missing: 'true', is_oom };
  return {
    recommendation: metrics.memRecommendations.series({
      update_mode,
      is_oom,
    }),
    over: metrics.memRecommendationOverUsageDiffs.series(memoryPresent),
    lowerEqual:
      metrics.memRecommendationLowerEqualUsageDiffs.series(memoryPresent),
    missingOver: metrics.memRecommendationOverUsageDiffs.series(memoryMissing),
    missingLowerEqual:
      metrics.memRecommendationLowerEqualUsageDiffs.series(memoryMissing),
    relative: metrics.usageRecommendationRelativeDiffs.series(memoryLabels),
    missingLabels: memoryLabels,
  };
}

/** Upstream's `updateModeToString`: an unset mode is the empty string (not `Recreate`). */
function updateModeOf(vpa: TrackedVpa): string {
  return vpa.object.spec.updatePolicy?.updateMode ?? '';
}

/** Upstream's GetVpaSizeLog2: ⌊log2 pods⌋, 0 for none, at most 20. */
export function vpaSizeLog2(pods: number): number {
  if (pods < 1) return 0;
  return pods >= 2 ** 20 ? 20 : 31 - Math.clz32(pods);
}

/**
 * One cycle's `vpa_quality_*` observations, where upstream makes them: each usage sample a
 * container under a VPA accepts, against its aggregate's last recommendation
 * (`ObserveQualityMetrics…` in the model's AddSample), and each recommendation against the
 * previous one (`ObserveRecommendationChange` in UpdateVPAs). The model stays unaware of it.
 *
 * An OOM kill's bumped-up memory sample goes to the `is_oom="true"` series
 * (`observeOom`), as upstream's RecordOOM files it through addMemorySample.
 */
export class QualityRecorder {
  /** This cycle's links, to be kept in the term's state for the next one. */
  readonly links: QualityLinks = new Map();
  private readonly seriesByMode = new Map<string, ModeSeries>();
  private readonly changeSeriesByKey = new Map<
    string,
    { cpu: HistogramSeries; memory: HistogramSeries }
  >();

  constructor(
    private readonly metrics: QualityMetrics,
    /** The previous cycle's links: their last recommendations carry over. */
    private readonly previous: QualityLinks,
  ) {}

  /**
   * Links every aggregate some VPA selects, as upstream's clusterState does when a VPA or an
   * aggregate appears (the first VPA in key order wins where several select one). Run after
   * LoadPods, before the samples.
   */
  link(model: ClusterModel): void {
    for (const key of model.vpaKeys()) {
      const vpa = model.vpa(key);
      const selector = vpa?.podSelector;
      if (vpa === undefined || selector === undefined) continue;
      const series = this.seriesFor(updateModeOf(vpa));
      for (const { containerName, state } of model.aggregatesOfVpa(key)) {
        if (this.links.has(state)) continue;
        const before = this.previous.get(state);
        this.links.set(state, {
          selector,
          observed:
            getContainerPolicy(vpa.object, containerName)?.mode !==
            ContainerScalingMode.Off,
          series,
          last: before?.selector === selector ? before.last : undefined,
        });
      }
    }
  }

  /**
   * One container's accepted samples (undefined: that resource's sample was not accepted),
   * compared with its aggregate's last recommendation: upstream's `observeQualityMetrics`.
   */
  observeUsage(
    aggregate: AggregateContainerState | undefined,
    cpuMillicores: number | undefined,
    memoryBytes: number | undefined,
  ): void {
    const link =
      aggregate === undefined ? undefined : this.links.get(aggregate);
    if (link === undefined || !link.observed) return;
    const { series, last } = link;
    // Upstream's CoresFromCPUAmount and MilliValue() / 1000; bytes as they are.
    if (cpuMillicores !== undefined)
      this.observeSample(
        series.cpu,
        cpuMillicores / 1000,
        (last?.cpuMillicores ?? 0) / 1000,
      );
    if (memoryBytes !== undefined)
      this.observeSample(series.memory, memoryBytes, last?.memoryBytes ?? 0);
  }

  /** An OOM kill's filed memory sample, against its aggregate's last recommendation. */
  observeOom(
    aggregate: AggregateContainerState | undefined,
    memoryBytes: number,
  ): void {
    const link =
      aggregate === undefined ? undefined : this.links.get(aggregate);
    if (link === undefined || !link.observed) return;
    this.observeSample(
      link.series.oomMemory,
      memoryBytes,
      link.last?.memoryBytes ?? 0,
    );
  }

  /**
   * A VPA's new recommendation: each aggregate it selects whose container has one compares
   * it with its last one (`relative_recommendation_changes`, with the VPA's pod count as
   * `vpa_size_log2`) and keeps it as its last.
   */
  observeRecommendation(
    model: ClusterModel,
    vpa: TrackedVpa,
    containerRecommendations: readonly RecommendedContainerResources[],
    podCount: number,
  ): void {
    if (containerRecommendations.length === 0) return;
    const series = this.changeSeriesFor(
      updateModeOf(vpa),
      vpaSizeLog2(podCount),
    );
    for (const { containerName, state } of model.aggregatesOfVpa(vpa.key)) {
      const link = this.links.get(state);
      const recommendation = containerRecommendations.find(
        (candidate) => candidate.containerName === containerName,
      );
      if (link === undefined || recommendation === undefined) continue;
      const current = readRecommendation(recommendation, link.last);
      const previous = link.last;
      link.last = current;
      if (previous === undefined || current === undefined) continue;
      // Upstream compares in millicores and bytes; a resource the old one lacks is skipped.
      if (current.cpuText !== undefined && previous.cpuMillicores > 0)
        series.cpu.observe(current.cpuMillicores / previous.cpuMillicores - 1);
      if (current.memoryText !== undefined && previous.memoryBytes > 0)
        series.memory.observe(current.memoryBytes / previous.memoryBytes - 1);
    }
  }

  /** Upstream's ObserveQualityMetrics, or …RecommendationMissing for a zero recommendation. */
  private observeSample(
    series: ResourceSeries,
    usage: number,
    recommendation: number,
  ): void {
    const missing = recommendation === 0;
    if (missing)
      this.metrics.usageSampleMissingRecommendation.inc(series.missingLabels);
    else series.recommendation.observe(recommendation);
    // observeUsageRecommendationDiff: by whether the recommendation is above the usage.
    const diff = Math.abs(usage - recommendation);
    if (recommendation > usage)
      (missing ? series.missingOver : series.over).observe(diff);
    else (missing ? series.missingLowerEqual : series.lowerEqual).observe(diff);
    if (!missing)
      series.relative.observe((usage - recommendation) / recommendation);
  }

  private seriesFor(mode: string): ModeSeries {
    let series = this.seriesByMode.get(mode);
    if (series === undefined) {
      series = modeSeries(this.metrics, mode);
      this.seriesByMode.set(mode, series);
    }
    return series;
  }

  private changeSeriesFor(mode: string, sizeLog2: number) {
    const key = `${mode}|${sizeLog2}`;
    let series = this.changeSeriesByKey.get(key);
    if (series === undefined) {
      const common = { update_mode: mode, vpa_size_log2: String(sizeLog2) };
      const changes = this.metrics.relativeRecommendationChanges;
      series = {
        cpu: changes.series({ ...common, resource: 'cpu' }),
        memory: changes.series({ ...common, resource: 'memory' }),
      };
      this.changeSeriesByKey.set(key, series);
    }
    return series;
  }
}

/** The uncapped target, reusing `known` when its texts are unchanged. */
function readRecommendation(
  recommendation: RecommendedContainerResources,
  known: LastRecommendation | undefined,
): LastRecommendation | undefined {
  const target = recommendation.uncappedTarget;
  if (target === undefined) return undefined;
  const cpuText = target['cpu'];
  const memoryText = target['memory'];
  if (
    known !== undefined &&
    known.cpuText === cpuText &&
    known.memoryText === memoryText
  )
    return known;
  return {
    cpuText,
    cpuMillicores: cpuText === undefined ? 0 : parseCpuMillicores(cpuText),
    memoryText,
    memoryBytes: memoryText === undefined ? 0 : parseMemoryBytes(memoryText),
  };
}

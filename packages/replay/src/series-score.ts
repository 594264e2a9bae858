/** What one series cost and broke under one strategy, over its scored time. */
export interface SeriesScore {
  readonly seriesId: string;
  /** Hours replayed unscored first (8 days, or 1 day for a short series). */
  readonly warmupHours: number;
  readonly scoredHours: number;
  /** Σ max(request − usage, 0) × time. */
  readonly cpuSlackCoreHours: number;
  readonly memorySlackGiBHours: number;
  /** Σ max(usage − request, 0) × time: CPU the container wanted beyond its request. */
  readonly cpuShortfallCoreHours: number;
  /** Σ request × time, what relative slack divides by. */
  readonly cpuRequestCoreHours: number;
  readonly memoryRequestGiBHours: number;
  /** Σ usage × time. */
  readonly cpuUsageCoreHours: number;
  /** Samples whose memory usage exceeded the limit in force. */
  readonly oomEvents: number;
  /** Times a new request reached the pod (evictions or resizes). */
  readonly requestChanges: number;
}

const MS_PER_HOUR = 3_600_000;
const BYTES_PER_GIB = 1024 ** 3;

/** Sums one series' score step by step (usage in millicores and bytes, time in ms). */
export class ScoreAccumulator {
  private cpuSlack = 0;
  private memorySlack = 0;
  private cpuShortfall = 0;
  private cpuRequest = 0;
  private memoryRequest = 0;
  private cpuUsage = 0;
  private scoredMs = 0;
  oomEvents = 0;
  requestChanges = 0;

  addStep(
    durationMs: number,
    requestCpu: number,
    requestMemory: number,
    usageCpu: number,
    usageMemory: number,
  ): void {
    this.scoredMs += durationMs;
    this.cpuSlack += Math.max(requestCpu - usageCpu, 0) * durationMs;
    this.cpuShortfall += Math.max(usageCpu - requestCpu, 0) * durationMs;
    this.memorySlack += Math.max(requestMemory - usageMemory, 0) * durationMs;
    this.cpuRequest += requestCpu * durationMs;
    this.memoryRequest += requestMemory * durationMs;
    this.cpuUsage += usageCpu * durationMs;
  }

  score(seriesId: string, warmupMs: number): SeriesScore {
    const coreHours = (millicoreMs: number) => millicoreMs / 1000 / MS_PER_HOUR;
    const gibHours = (byteMs: number) => byteMs / BYTES_PER_GIB / MS_PER_HOUR;
    return {
      seriesId,
      warmupHours: warmupMs / MS_PER_HOUR,
      scoredHours: this.scoredMs / MS_PER_HOUR,
      cpuSlackCoreHours: coreHours(this.cpuSlack),
      memorySlackGiBHours: gibHours(this.memorySlack),
      cpuShortfallCoreHours: coreHours(this.cpuShortfall),
      cpuRequestCoreHours: coreHours(this.cpuRequest),
      memoryRequestGiBHours: gibHours(this.memoryRequest),
      cpuUsageCoreHours: coreHours(this.cpuUsage),
      oomEvents: this.oomEvents,
      requestChanges: this.requestChanges,
    };
  }
}

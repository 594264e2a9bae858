import type { Registry } from '@tandem/telemetry';

type SeriesLabels<L extends string> = Readonly<Record<L, string>>;

/** One labelled series of a {@link SeriesHistogram}: observing is a bucket search and three additions. */
export class HistogramSeries<L extends string = string> {
  /** Observations per bucket (not cumulative); those above the last bound are only counted. */
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: SeriesLabels<L>,
    /** Called on the first observation: the series shows from then on. */
    private readonly firstObserved: (series: HistogramSeries<L>) => void,
  ) {
    this.buckets = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    if (this.count === 0) this.firstObserved(this);
    // The first bound ≥ value, as Prometheus' `le`; NaN lands above them all, as in Go.
    let low = 0;
    let high = this.bounds.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (!((this.bounds[middle] ?? 0) >= value)) low = middle + 1;
      else high = middle;
    }
    if (low < this.buckets.length)
      this.buckets[low] = (this.buckets[low] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }
}

/**
 * A Prometheus histogram for the hot path, read by a prom-client registry exactly as its own
 * `Histogram` (same values, labels and exposition). prom-client hashes the labels on every
 * observation (about a microsecond); here a caller resolves a series once with
 * {@link series} and observes on it, which costs a few nanoseconds.
 */
export class SeriesHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly L[];
  private readonly bounds: readonly number[];
  private readonly bySeriesKey = new Map<string, HistogramSeries<L>>();
  /** The series observed so far, in the order of their first observation (as prom-client lists them). */
  private observed: HistogramSeries<L>[] = [];

  constructor(options: {
    name: string;
    help: string;
    labelNames: readonly L[];
    buckets: readonly number[];
    registers: readonly Registry[];
  }) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    this.bounds = [...options.buckets].sort((a, b) => a - b);
    for (const registry of options.registers)
      registry.registerMetric(
        this as unknown as Parameters<Registry['registerMetric']>[0],
      );
  }

  /**
   * The series of these label values. Resolving one is free of side effects: like
   * prom-client's, a series shows only once something was observed on it.
   */
  series(labels: SeriesLabels<L>): HistogramSeries<L> {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let series = this.bySeriesKey.get(key);
    if (series === undefined) {
      series = new HistogramSeries(this.bounds, labels, (first) => {
        // A handle from before a reset stays out.
        if (this.bySeriesKey.get(key) === first) this.observed.push(first);
      });
      this.bySeriesKey.set(key, series);
    }
    return series;
  }

  observe(labels: SeriesLabels<L>, value: number): void {
    this.series(labels).observe(value);
  }

  /** Forgets every series; handles resolved before then observe into nothing. */
  reset(): void {
    this.bySeriesKey.clear();
    this.observed = [];
  }

  /** prom-client's `get()` of a histogram: per series its cumulative buckets, `_sum` and `_count`. */
  async get() {
    const values: {
      labels: Record<string, string | number>;
      value: number;
      metricName: string;
      exemplar?: null;
    }[] = [];
    for (const series of this.observed) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += series.buckets[index] ?? 0;
        values.push({
          labels: { le: bound, ...series.labels },
          value: cumulative,
          metricName: `${this.name}_bucket`,
          exemplar: null,
        });
      });
      values.push(
        {
          labels: { le: '+Inf', ...series.labels },
          value: series.count,
          metricName: `${this.name}_bucket`,
          exemplar: null,
        },
        {
          labels: { ...series.labels },
          value: series.sum,
          metricName: `${this.name}_sum`,
        },
        {
          labels: { ...series.labels },
          value: series.count,
          metricName: `${this.name}_count`,
        },
      );
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }
}

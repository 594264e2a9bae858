/** The reasons of the events the recommender writes on VPAs, one place for all (README "Events"). */
export const RecommenderEventReason = {
  /** Normal: the VPA's first recommendation, with its targets. */
  RecommendationProvided: 'RecommendationProvided',
  /**
   * Normal: a container's target moved by at least the updater's `--pod-update-threshold`
   * default (10 %) from the previous status; the moves that did are listed.
   */
  RecommendationChanged: 'RecommendationChanged',
  /** Warning: a checkpoint was skipped and its history not loaded (ADR 0007). */
  CheckpointCorrupt: 'CheckpointCorrupt',
  /** Warning: the strategy annotations do not read; the default strategy runs (ADR 0026). */
  StrategyFallback: 'StrategyFallback',
  /**
   * Warning: a container was OOM-killed while its memory target is already at maxAllowed;
   * at most one a container every 10 min (kubernetes/autoscaler#9521).
   */
  OomAtMaxAllowed: 'OOMAtMaxAllowed',
} as const;

export type RecommenderEventReason =
  (typeof RecommenderEventReason)[keyof typeof RecommenderEventReason];

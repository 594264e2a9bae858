/** Why the model refused an input. The loop logs and counts these; none of them is fatal. */
export type ModelErrorKind =
  | 'unknown-pod'
  | 'unknown-container'
  | 'unknown-vpa'
  | 'init-container'
  | 'sample-discarded'
  | 'invalid-input'
  | 'stale-oom'
  | 'corrupt-checkpoint';

export interface ModelError {
  readonly kind: ModelErrorKind;
  readonly message: string;
}

/**
 * The outcome of one model operation. Data problems (an unknown pod, a stale OOM, a corrupt
 * checkpoint) come back as values so that one bad object never stops a whole cycle.
 */
export interface ModelFailure {
  readonly ok: false;
  readonly error: ModelError;
}

export type ModelResult = { readonly ok: true } | ModelFailure;

/** An OOM recorded: the bytes filed as its memory sample (undefined when discarded). */
export type OomResult =
  | { readonly ok: true; readonly filedMemoryBytes: number | undefined }
  | ModelFailure;

export const OK: ModelResult = Object.freeze({ ok: true });

export function failure(kind: ModelErrorKind, message: string): ModelFailure {
  return { ok: false, error: { kind, message } };
}

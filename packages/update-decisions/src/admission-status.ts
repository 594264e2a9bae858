/** The Lease fields the freshness check reads. */
export interface StatusLease {
  metadata?: { creationTimestamp?: string | Date | null };
  spec?: { renewTime?: string | Date | null };
}

/**
 * Whether the admission controller's status Lease says it is alive (upstream
 * `status_object.go`): created or renewed less than `timeoutMs` ago. Evicted pods only get
 * their recommendation from a live admission webhook, so the updater evicts nothing
 * otherwise.
 */
export function isAdmissionStatusFresh(
  lease: StatusLease | undefined,
  nowMs: number,
  timeoutMs: number,
): boolean {
  if (lease === undefined) return false;
  return [lease.metadata?.creationTimestamp, lease.spec?.renewTime].some(
    (time) => {
      if (time === undefined || time === null) return false;
      const ms = time instanceof Date ? time.getTime() : Date.parse(time);
      return !Number.isNaN(ms) && ms + timeoutMs > nowMs;
    },
  );
}

import type { V1Lease } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LeaseClient } from './leader-elector.js';

/** An error carrying an HTTP status, as client-node's ApiException does. */
export const httpError = (code: number) =>
  Object.assign(new Error(`HTTP ${code}`), { code });

/** An in-memory Lease store with resourceVersion checks, and switches to inject failures. */
export class FakeLeases implements LeaseClient {
  lease: V1Lease | undefined;
  private version = 0;
  failAll = false;
  conflictOnWrite = false;
  writes = 0;

  async readNamespacedLease(): Promise<V1Lease> {
    if (this.failAll) throw httpError(503);
    if (this.lease === undefined) throw httpError(404);
    return structuredClone(this.lease);
  }
  async createNamespacedLease(param: { body: V1Lease }): Promise<V1Lease> {
    if (this.failAll) throw httpError(503);
    if (this.lease !== undefined || this.conflictOnWrite) throw httpError(409);
    return this.store(param.body);
  }
  async replaceNamespacedLease(param: { body: V1Lease }): Promise<V1Lease> {
    if (this.failAll) throw httpError(503);
    if (
      this.conflictOnWrite ||
      param.body.metadata?.resourceVersion !== String(this.version)
    )
      throw httpError(409);
    return this.store(param.body);
  }
  private store(body: V1Lease): V1Lease {
    this.version += 1;
    this.writes += 1;
    this.lease = JSON.parse(
      JSON.stringify({
        ...body,
        metadata: { ...body.metadata, resourceVersion: String(this.version) },
      }),
    );
    return structuredClone(this.lease as V1Lease);
  }
}

/** Polls `condition` every 10 ms for 3 s; throws naming `what` when it never holds. */
export async function until(
  condition: () => boolean,
  what: string,
): Promise<void> {
  const deadlineMs = Date.now() + 10_000;
  while (Date.now() < deadlineMs) {
    if (condition()) return;
    await sleep(10);
  }
  throw new Error(`never happened: ${what}`);
}

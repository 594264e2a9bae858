import { parseMemoryBytes } from '@tandem/vpa-api';
import type { ObservedOom } from './oom-detection.js';

/** The parts of a core/v1 Event the eviction OOM detection reads. */
export interface ObservedEvent {
  readonly metadata?: {
    readonly annotations?: Readonly<Record<string, string>>;
    readonly creationTimestamp?: Date | string;
  };
  readonly reason?: string;
  readonly involvedObject?: {
    readonly kind?: string;
    readonly namespace?: string;
    readonly name?: string;
  };
}

/** What the kubelet's eviction manager annotates an `Evicted` event with. */
const OFFENDING_CONTAINERS = 'offending_containers';
const OFFENDING_CONTAINERS_USAGE = 'offending_containers_usage';
const STARVED_RESOURCE = 'starved_resource';

/**
 * The memory "OOMs" an eviction event stands for, as upstream's OOM observer reads them:
 * the kubelet lists, per offending container, its usage and the starved resource in three
 * comma-separated annotations of equal length; each container evicted for memory counts
 * as an OOM at its usage, timed at the event's creation. Lists of unequal length say
 * nothing reliable and give no OOM; an unparseable usage skips that container only.
 */
export function oomsFromEvictionEvent(event: ObservedEvent): ObservedOom[] {
  const { involvedObject } = event;
  if (event.reason !== 'Evicted' || involvedObject?.kind !== 'Pod') return [];
  const annotations = event.metadata?.annotations ?? {};
  const list = (key: string) => annotations[key]?.split(',') ?? [];
  const containers = list(OFFENDING_CONTAINERS);
  const usages = list(OFFENDING_CONTAINERS_USAGE);
  const starved = list(STARVED_RESOURCE);
  if (
    usages.length !== containers.length ||
    starved.length !== containers.length
  )
    return [];
  const timeMs = new Date(event.metadata?.creationTimestamp ?? NaN).getTime();
  if (Number.isNaN(timeMs)) return [];
  const ooms: ObservedOom[] = [];
  containers.forEach((containerName, index) => {
    if (starved[index] !== 'memory') return;
    let memoryBytes;
    try {
      memoryBytes = parseMemoryBytes(usages[index] ?? '');
    } catch {
      return;
    }
    ooms.push({
      namespace: involvedObject.namespace ?? '',
      podName: involvedObject.name ?? '',
      containerName,
      timeMs,
      memoryBytes,
    });
  });
  return ooms;
}

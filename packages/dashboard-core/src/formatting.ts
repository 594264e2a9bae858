import { formatCpuMillicores, formatMemoryBytes } from '@tandem/vpa-api';
import type { PerContainer } from './observed.js';

/** `app: 250m / 256Mi; sidecar: 10m / 32Mi`, as kubectl prints quantities. */
export function formatPerContainer(perContainer: PerContainer): string {
  const entries = Object.entries(perContainer);
  if (entries.length === 0) return '—';
  return entries
    .map(
      ([name, resources]) =>
        `${name}: ${
          resources.cpuMillicores === undefined
            ? '—'
            : formatCpuMillicores(Math.round(resources.cpuMillicores))
        } / ${
          resources.memoryBytes === undefined
            ? '—'
            : formatMemoryBytes(Math.round(resources.memoryBytes))
        }`,
    )
    .join('; ');
}

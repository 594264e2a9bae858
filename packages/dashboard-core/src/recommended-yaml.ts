import { formatCpuMillicores, formatMemoryBytes } from '@tandem/vpa-api';
import type { WorkloadSummary } from './workload-summary.js';

/**
 * The VPA's target as the `resources` a user would paste into the workload's containers,
 * as Goldilocks shows it; undefined when the VPA has no recommendation yet.
 */
export function recommendedYaml(workload: WorkloadSummary): string | undefined {
  const containers = Object.entries(workload.vpa?.target ?? {});
  if (containers.length === 0) return undefined;
  const lines = [
    `# ${workload.namespace}/${workload.kind}/${workload.name}: the VPA's target`,
    'containers:',
  ];
  for (const [name, resources] of containers) {
    lines.push(`  - name: ${name}`, '    resources:', '      requests:');
    if (resources.cpuMillicores !== undefined)
      lines.push(
        `        cpu: ${formatCpuMillicores(resources.cpuMillicores)}`,
      );
    if (resources.memoryBytes !== undefined)
      lines.push(`        memory: ${formatMemoryBytes(resources.memoryBytes)}`);
  }
  return `${lines.join('\n')}\n`;
}

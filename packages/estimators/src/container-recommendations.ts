import {
  formatCpuMillicores,
  formatMemoryBytes,
  parseQuantity,
} from '@tandem/vpa-api';
import { humanizedMemoryText } from './humanized-memory.js';
import type { RecommendedContainerResources } from './recommend-pod.js';
import type { ResourceAmounts } from './resource-amount.js';

/**
 * CPU and memory as Kubernetes quantity strings. A type, not an interface, so that it is a
 * `ResourceList` (a status's quantities) as it is.
 */
export type ResourceQuantities = {
  readonly cpu: string;
  readonly memory: string;
};

/** One entry of `status.recommendation.containerRecommendations` of a VPA. */
export interface ContainerRecommendation {
  readonly containerName: string;
  readonly target: ResourceQuantities;
  readonly lowerBound: ResourceQuantities;
  readonly upperBound: ResourceQuantities;
  /** The target before post-processing (capping); equal to target here. */
  readonly uncappedTarget: ResourceQuantities;
}

/** Output formatting, upstream's `--round-cpu-millicores`, `--round-memory-bytes`, `--humanize-memory`. */
export interface RecommendationFormat {
  /** Round CPU up to a multiple of this many millicores (1: no rounding). */
  readonly roundCpuMillicores?: number;
  /** Round memory up to a multiple of this many bytes (1: no rounding). */
  readonly roundMemoryBytes?: number;
  /** Deprecated upstream: memory rewritten with two decimals in Ki/Mi/Gi/Ti, then re-parsed. */
  readonly humanizeMemory?: boolean;
}

/**
 * Converts recommendations into the VPA status form, sorted by container name, with
 * quantity strings exactly as upstream's recommender writes them: CPU as DecimalSI from
 * millicores (587 → `587m`, 2000 → `2`), memory as BinarySI bytes (262144000 → `250Mi`,
 * 628694953 → `628694953`).
 *
 * With `humanizeMemory`, upstream parses text such as `250.00Mi` back into a quantity;
 * quantities with a fraction are never kept verbatim by apimachinery, so what reaches the
 * status is the canonical form of that value (`250Mi`; `1.50Ki` becomes `1536`).
 */
export function toContainerRecommendations(
  recommendation: ReadonlyMap<string, RecommendedContainerResources>,
  format: RecommendationFormat = {},
): ContainerRecommendation[] {
  const roundCpu = roundingStep(
    format.roundCpuMillicores,
    'roundCpuMillicores',
  );
  const roundMemory = roundingStep(format.roundMemoryBytes, 'roundMemoryBytes');
  const toQuantities = (amounts: ResourceAmounts): ResourceQuantities => ({
    cpu: formatCpuMillicores(roundUp(amounts.cpu, roundCpu)),
    memory: memoryQuantity(
      roundUp(amounts.memory, roundMemory),
      format.humanizeMemory === true,
    ),
  });
  return [...recommendation.keys()].sort().map((containerName) => {
    const resources = recommendation.get(containerName);
    if (resources === undefined)
      throw new Error(`container ${containerName} vanished`);
    // The uncapped target is the target here, formatted once (four quantities of 200,000
    // recommendations a cycle at 100,000 VPAs): its own object, the same strings.
    const target = toQuantities(resources.target);
    return {
      containerName,
      target,
      lowerBound: toQuantities(resources.lowerBound),
      upperBound: toQuantities(resources.upperBound),
      uncappedTarget: { cpu: target.cpu, memory: target.memory },
    };
  });
}

function roundingStep(step: number | undefined, name: string): number {
  if (step === undefined) return 1;
  if (!(Number.isSafeInteger(step) && step > 0)) {
    throw new RangeError(`${name} must be a positive integer, got ${step}`);
  }
  return step;
}

/**
 * Up to a multiple of `step`, computed as upstream's RoundUpToScale (zero stays zero). The
 * default step of 1 keeps the plain number, which the formatters take on their fast path.
 */
function roundUp(amount: number, step: number): number | bigint {
  if (step === 1 || amount === 0) return amount;
  return BigInt(Math.ceil(amount / step)) * BigInt(step);
}

function memoryQuantity(bytes: number | bigint, humanize: boolean): string {
  if (!humanize || Number(bytes) === 0) return formatMemoryBytes(bytes);
  return parseQuantity(humanizedMemoryText(bytes)).toString();
}

import type { AggregateContainerState } from '@tandem/estimators';
import {
  compileLabelSelector,
  type LabelSelector,
  type LabelSelectorMatcher,
  parseResourceList,
  type VerticalPodAutoscaler,
  type VpaTarget,
} from '@tandem/vpa-api';

import { labelPair } from './selecting-vpas.js';
import {
  vpaStrategyState,
  type StrategySettings,
  type VpaStrategyState,
} from './vpa-strategy-state.js';

/** Resolving `targetRef` needs the API server, so the loop does it; the type is shared. */
export type { VpaTarget };

/** A VPA as the model holds it: the observed object plus what the recommender derives from it. */
export interface TrackedVpa {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  /** The object as last listed: policy, update mode, recommenders, conditions, generation. */
  readonly object: VerticalPodAutoscaler;
  /** Matches the VPA's pods; undefined when the target is unsupported (matches nothing). */
  readonly podSelector: LabelSelectorMatcher | undefined;
  /** The selector `podSelector` was compiled from, as JSON: an unchanged one is reused. */
  readonly selectorText: string | undefined;
  /**
   * A `key=value` label every pod it selects carries (its selector's first `matchLabels`
   * entry), undefined when the selector requires none: the model looks for the VPAs
   * selecting a label set among those its labels name.
   */
  readonly requiredLabel: string | undefined;
  /**
   * Why the VPA cannot be served (its ConfigUnsupported message): an unresolvable target, or
   * a resource policy whose quantities do not parse (capping could not apply it).
   */
  readonly unsupportedReason: string | undefined;
  /** True when the policy cannot be applied, so no recommendation may be written. */
  readonly policyUnusable: boolean;
  /** Per container name, the history loaded from checkpoints at start-up. */
  readonly initialState: Map<string, AggregateContainerState>;
  /** The strategy its annotations name (or the default), with the state it keeps. */
  readonly strategy: VpaStrategyState;
}

/**
 * Builds the tracked form of a VPA. An invalid selector or an unusable policy makes the VPA
 * unsupported rather than failing the cycle. Its history is kept either way: upstream still
 * recommends from checkpointed history when the target cannot be resolved. The compiled
 * selector of `previous` is kept when the selector is unchanged, so what the model
 * remembers per selector (which label sets it matched) lasts across cycles.
 */
export function trackVpa(
  identity: { key: string; namespace: string; name: string },
  object: VerticalPodAutoscaler,
  target: VpaTarget,
  previous: TrackedVpa | undefined,
  strategies: StrategySettings,
): TrackedVpa {
  const selectorText =
    'selector' in target ? JSON.stringify(target.selector) : undefined;
  const resolved =
    selectorText !== undefined &&
    selectorText === previous?.selectorText &&
    previous.podSelector !== undefined
      ? { matcher: previous.podSelector }
      : resolveSelector(target);
  const policyError = unparseablePolicy(object);
  const required = requiredLabel(target);
  // Named fields rather than a spread: one object literal of one shape, built in one step
  // (every VPA is tracked anew each cycle its object changes, every cycle in the benches).
  // Equal texts are taken from `previous`: the ones made this cycle are then dropped young
  // instead of kept, 100,000 of each at issue 25's scale.
  return {
    key: previous?.key ?? identity.key,
    namespace: previous?.namespace ?? identity.namespace,
    name: previous?.name ?? identity.name,
    object,
    podSelector: 'matcher' in resolved ? resolved.matcher : undefined,
    selectorText: keptIfEqual(selectorText, previous?.selectorText),
    requiredLabel: keptIfEqual(required, previous?.requiredLabel),
    unsupportedReason: 'reason' in resolved ? resolved.reason : policyError,
    policyUnusable: policyError !== undefined,
    initialState: previous?.initialState ?? new Map(),
    strategy: vpaStrategyState(object, strategies, previous?.strategy),
  };
}

/** `kept` when it is the same text as `made` (the copy to hold on to), else `made`. */
function keptIfEqual(
  made: string | undefined,
  kept: string | undefined,
): string | undefined {
  return made === kept ? kept : made;
}

function resolveSelector(
  target: VpaTarget,
): { matcher: LabelSelectorMatcher } | { reason: string } {
  if ('unsupported' in target) return { reason: target.unsupported };
  try {
    return { matcher: compileLabelSelector(target.selector) };
  } catch (error) {
    return {
      reason: `Cannot read targetRef. Reason: ${(error as Error).message}`,
    };
  }
}

function requiredLabel(target: VpaTarget): string | undefined {
  // A null selector (it selects nothing) gets here from JSON too.
  const selector: LabelSelector | null =
    'selector' in target ? target.selector : null;
  const matchLabels = selector?.matchLabels;
  for (const key in matchLabels) return labelPair(key, matchLabels[key] ?? '');
  return undefined;
}

function unparseablePolicy(object: VerticalPodAutoscaler): string | undefined {
  for (const policy of object.spec.resourcePolicy?.containerPolicies ?? []) {
    try {
      parseResourceList(policy.minAllowed);
      parseResourceList(policy.maxAllowed);
    } catch (error) {
      return `Invalid resourcePolicy for container ${JSON.stringify(policy.containerName)}: ${(error as Error).message}`;
    }
  }
  return undefined;
}

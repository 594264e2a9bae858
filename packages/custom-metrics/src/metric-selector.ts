import {
  LabelSelectorOperator,
  type LabelSelector,
  parseLabelSelector,
  SelectorError,
} from '@tandem/vpa-api';

/** The one series label Tandem's metrics have. */
const CONTAINER_LABEL = 'container';

const UNSUPPORTED =
  'metricLabelSelector supports only container=<name> (one container), or nothing for the sum over the containers';

/**
 * The container a request's `metricLabelSelector` narrows to. The HPA sends the metric's
 * `selector` in string form, so `{matchLabels: {container: app}}` arrives as
 * `container=app` and a one-value `In` expression as `container in (app)`; `==` is the
 * same thing. Absent or empty means every container (`{}`). Anything else — another
 * label, several containers, a negation — is an error: silently ignoring part of a
 * selector would feed the HPA a value for a different set of series than it asked for.
 */
export function containerFromMetricSelector(
  metricLabelSelector: string | undefined,
): { container?: string } | { error: string } {
  if (metricLabelSelector === undefined || metricLabelSelector.trim() === '')
    return {};
  const selector = parsed(metricLabelSelector);
  if (selector instanceof Error) {
    return { error: `metricLabelSelector: ${selector.message}` };
  }
  const [only, ...others] = selector.matchExpressions ?? [];
  const container = only?.values?.[0];
  if (
    others.length > 0 ||
    only?.key !== CONTAINER_LABEL ||
    only.operator !== LabelSelectorOperator.In ||
    only.values?.length !== 1 ||
    container === undefined ||
    container === ''
  ) {
    return {
      error: `${UNSUPPORTED}, got ${JSON.stringify(metricLabelSelector)}`,
    };
  }
  return { container };
}

function parsed(text: string): LabelSelector | SelectorError {
  try {
    return parseLabelSelector(text);
  } catch (error) {
    if (error instanceof SelectorError) return error;
    throw error;
  }
}

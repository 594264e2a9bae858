import { freshCycleState, type CycleContext } from './cycle-context.js';
import { loadVpas } from './cycle.js';

/**
 * A leadership term begins (§4.1, upstream's OnStartedLeading): a fresh model, the VPAs
 * linked to their pods so the memory saver knows what to keep, then the history as the
 * previous leader last wrote it. Loading here, not at process start, is what keeps a
 * standby that takes over hours later from writing checkpoints out of stale history.
 */
export async function startTerm(
  context: CycleContext,
  loadHistory: (context: CycleContext) => Promise<void>,
): Promise<void> {
  const { logger, metrics } = context.observability;
  context.state = freshCycleState(context.settings, context.inputs.clock());
  const vpas = await loadVpas(context, (kind, message) =>
    logger.warn({ kind }, message),
  );
  await loadHistory(context);
  metrics.aggregateContainerStates.set(context.state.model.aggregateCount);
  logger.info(
    { vpas, aggregates: context.state.model.aggregateCount },
    'term started: history loaded',
  );
}

/**
 * The lease is lost (upstream exits here): the model is dropped, and writes already
 * stopped, since every write checks `stillLeading`. The next leader loads the checkpoints
 * this term wrote.
 */
export function endTerm(context: CycleContext): void {
  context.state = freshCycleState(context.settings, context.inputs.clock());
  context.observability.metrics.aggregateContainerStates.set(0);
  context.observability.logger.info('term ended: model dropped');
}

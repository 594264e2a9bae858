/**
 * The span attribute that carries the reason of the Kubernetes Event a decision wrote (or
 * would have), so a trace and `kubectl get events` name a decision alike.
 */
export const EVENT_REASON_ATTRIBUTE = 'tandem.event.reason';

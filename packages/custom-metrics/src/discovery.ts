import {
  CUSTOM_METRICS_GROUP,
  CUSTOM_METRICS_VERSIONS,
  groupVersion,
  type CustomMetricsVersion,
} from './api-group.js';
import { METRIC_NAMES, UTILIZATION_METRICS } from './metric-names.js';

/**
 * Discovery documents (reference §1.2). Through the aggregator kube-apiserver answers
 * `/apis` and `/apis/<group>` itself; we answer them too for port-forwarded kubectl and
 * tests. Both served versions are listed (custom-metrics-apiserver lists only the first),
 * v1beta2 preferred.
 */

function groupVersionFor(version: CustomMetricsVersion) {
  return { groupVersion: groupVersion(version), version };
}

function group() {
  return {
    name: CUSTOM_METRICS_GROUP,
    versions: CUSTOM_METRICS_VERSIONS.map(groupVersionFor),
    preferredVersion: groupVersionFor('v1beta2'),
  };
}

/** `GET /apis`: an APIGroupList with our one group. */
export function apiGroupList(): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [group()] };
}

/** `GET /apis/custom.metrics.k8s.io`: the APIGroup. */
export function apiGroup(): object {
  return { kind: 'APIGroup', apiVersion: 'v1', ...group() };
}

/** The object metrics Tandem serves, as discovery names their resource (`deployments.apps`). */
export const DEPLOYMENTS = 'deployments.apps';

const resource = (name: string) => ({
  name,
  singularName: '',
  namespaced: true,
  kind: 'MetricValueList',
  verbs: ['get'],
});

/**
 * `GET /apis/custom.metrics.k8s.io/<v>`: an APIResourceList with `pods/<metric>` per
 * metric and `deployments.apps/<metric>` per utilization metric (the Object form). The HPA
 * never reads it (it calls metric URLs directly), but kubectl and the aggregator's
 * availability check do, so it must answer fast and never fail.
 */
export function apiResourceList(version: CustomMetricsVersion): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersion(version),
    resources: [
      ...METRIC_NAMES.map((metric) => resource(`pods/${metric}`)),
      ...UTILIZATION_METRICS.map((metric) =>
        resource(`${DEPLOYMENTS}/${metric}`),
      ),
    ],
  };
}

import { formatPerContainer } from './formatting.js';
import {
  FLEET_SORTS,
  orderFleet,
  replicasSaved,
  type FleetSort,
} from './fleet-order.js';
import { html, type Html } from './html.js';
import { pageFrame } from './page-frame.js';
import type { WorkloadSummary } from './workload-summary.js';

export interface FleetView {
  readonly namespace: string | undefined;
  readonly sort: FleetSort;
  readonly descending: boolean;
  /** 1-based; out of range shows the last page. */
  readonly page: number;
}

/** Rows a page: a fleet of thousands stays a page of a few tens of kilobytes. */
export const FLEET_PAGE_ROWS = 100;

const SORT_LABELS: Readonly<Record<FleetSort, string>> = {
  drift: 'Replicas saved',
  namespace: 'Namespace',
  name: 'Workload',
  replicas: 'HPA replicas',
  native: 'Native HPA would run',
};

export function workloadPath(workload: {
  namespace: string;
  kind: string;
  name: string;
}): string {
  return `/workloads/${[workload.namespace, workload.kind, workload.name].map(encodeURIComponent).join('/')}`;
}

/** Every workload under a VPA or an HPA, one row each; filters and sorts by links, no script. */
export function fleetPage(
  workloads: readonly WorkloadSummary[],
  view: FleetView,
): Html {
  const namespaces = [
    ...new Set([
      ...workloads.map((w) => w.namespace),
      ...(view.namespace === undefined ? [] : [view.namespace]),
    ]),
  ].sort();
  const matching = orderFleet(
    workloads.filter(
      (w) => view.namespace === undefined || w.namespace === view.namespace,
    ),
    view.sort,
    view.descending,
  );
  const pages = Math.max(1, Math.ceil(matching.length / FLEET_PAGE_ROWS));
  const page = Math.min(Math.max(1, Math.trunc(view.page) || 1), pages);
  const shown = matching.slice(
    (page - 1) * FLEET_PAGE_ROWS,
    page * FLEET_PAGE_ROWS,
  );
  const pageLink = (to: number) => {
    const query = new URLSearchParams({
      sort: view.sort,
      order: view.descending ? 'desc' : 'asc',
      page: String(to),
    });
    if (view.namespace !== undefined) query.set('namespace', view.namespace);
    return `/?${query}`;
  };
  const pager =
    pages === 1
      ? ''
      : html`<nav class="pager" aria-label="Pages">
          ${page > 1
            ? html`<a href="${pageLink(page - 1)}" rel="prev">Previous</a>`
            : ''}
          <span>Page ${page} of ${pages}</span>
          ${page < pages
            ? html`<a href="${pageLink(page + 1)}" rel="next">Next</a>`
            : ''}
        </nav>`;
  const link = (sort: FleetSort) => {
    const descending = sort === view.sort ? !view.descending : sort === 'drift';
    const query = new URLSearchParams({
      sort,
      order: descending ? 'desc' : 'asc',
    });
    if (view.namespace !== undefined) query.set('namespace', view.namespace);
    return `/?${query}`;
  };
  const header = (sort: FleetSort) =>
    html`<th
      scope="col"
      aria-sort="${sort === view.sort
        ? view.descending
          ? 'descending'
          : 'ascending'
        : 'none'}"
    >
      <a href="${link(sort)}">${SORT_LABELS[sort]}</a>
    </th>`;
  const rows = shown.map(
    (w) =>
      html`<tr data-workload="${w.namespace}/${w.name}">
        <td>${w.namespace}</td>
        <th scope="row">
          <a href="${workloadPath(w)}">${w.name}</a>
          <span class="kind">${w.kind}</span>
        </th>
        <td>${w.vpa === null ? '—' : w.vpa.mode}</td>
        <td class="number">
          ${w.hpa === null
            ? '—'
            : `${w.hpa.currentReplicas} → ${w.hpa.desiredReplicas}`}
        </td>
        <td class="number">${w.nativeEquivalentReplicas ?? '—'}</td>
        <td class="number">${w.hpa === null ? '—' : replicasSaved(w)}</td>
        <td>${formatPerContainer(w.declared)}</td>
        <td>${formatPerContainer(w.current)}</td>
        <td>${formatPerContainer(w.vpa?.target ?? {})}</td>
      </tr>`,
  );
  const options = namespaces.map(
    (namespace) =>
      html`<option
        value="${namespace}"
        ${namespace === view.namespace ? html` selected` : ''}
      >
        ${namespace}
      </option>`,
  );
  return pageFrame(
    'Workloads',
    html`<h1>Workloads under a VPA or an HPA</h1>
      <form method="get" action="/" class="filter">
        <label for="namespace">Namespace</label>
        <select id="namespace" name="namespace">
          <option value="">all namespaces</option>
          ${options}
        </select>
        <input type="hidden" name="sort" value="${view.sort}" />
        <input
          type="hidden"
          name="order"
          value="${view.descending ? 'desc' : 'asc'}"
        />
        <button type="submit">Show</button>
      </form>
      <p>
        ${matching.length} workloads. “Native HPA would run” is what a native
        CPU or memory HPA with the same target would run from the same usage and
        the requests the pods have now.
      </p>
      <table>
        <caption class="visually-hidden">
          Workloads, sorted by ${SORT_LABELS[view.sort]}
        </caption>
        <thead>
          <tr>
            ${header('namespace')} ${header('name')}
            <th scope="col">VPA mode</th>
            ${header('replicas')} ${header('native')} ${header('drift')}
            <th scope="col">Declared</th>
            <th scope="col">Requests now</th>
            <th scope="col">VPA target</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>
      ${pager}
      <p class="api">
        The same figures as JSON: <a href="/api/workloads">/api/workloads</a>.
        Sorts: ${FLEET_SORTS.join(', ')}.
      </p>`,
  );
}

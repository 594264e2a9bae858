import { formatPerContainer } from './formatting.js';
import { containersOf } from './history-values.js';
import type { HistoryView } from './history-range.js';
import { html, trustedMarkup, type Html } from './html.js';
import type { ObservedEvent } from './observed.js';
import { pageFrame } from './page-frame.js';
import { replicasPlot, resourcePlot, type HistoryPoint } from './plots.js';
import { recommendedYaml } from './recommended-yaml.js';
import type { WorkloadSummary } from './workload-summary.js';

/** The history a workload page draws, and why part of it may be missing. */
export interface PageHistory {
  readonly points: readonly HistoryPoint[];
  readonly view: HistoryView;
  /** Why the older history could not be read, if it could not. */
  readonly missing: string | undefined;
}

function rangeLinks({ view }: PageHistory): Html {
  const links = view.offered.map(
    ({ name }) =>
      html`<li>
        <a
          href="?range=${name}"
          aria-current="${name === view.range.name ? 'page' : 'false'}"
          >${name}</a
        >
      </li>`,
  );
  return html`<nav class="ranges" aria-label="History range">
    <ul>
      ${links}
    </ul>
  </nav>`;
}

/** One workload: its figures now, its plots over time, its decisions and the YAML to copy. */
export function workloadPage(
  workload: WorkloadSummary,
  history: PageHistory,
  events: readonly ObservedEvent[],
): Html {
  const { points } = history;
  const containers = containersOf(
    points.flatMap((point) => Object.keys(point.values)),
  );
  const plots = [
    ...(workload.hpa === null ? [] : [replicasPlot(points)]),
    ...containers.flatMap((container) => [
      resourcePlot(points, container, 'cpu'),
      resourcePlot(points, container, 'memory'),
    ]),
  ].map((svg) => html`<figure class="plot">${trustedMarkup(svg)}</figure>`);
  const yaml = recommendedYaml(workload);
  const timeline = [...events]
    .sort((a, b) => b.timeMs - a.timeMs)
    .map(
      (event) =>
        html`<tr class="${event.type === 'Warning' ? 'warning' : ''}">
          <td>
            <time datetime="${new Date(event.timeMs).toISOString()}"
              >${new Date(event.timeMs)
                .toISOString()
                .replace('T', ' ')
                .slice(0, 19)}</time
            >
          </td>
          <td>${event.component}</td>
          <td>${event.object.kind}/${event.object.name}</td>
          <th scope="row">
            ${event.reason}${event.count > 1 ? ` (×${event.count})` : ''}
          </th>
          <td>${event.message}</td>
        </tr>`,
    );
  return pageFrame(
    `${workload.namespace}/${workload.name}`,
    html`<h1>${workload.kind} ${workload.namespace}/${workload.name}</h1>
      <dl class="figures">
        <dt>VPA</dt>
        <dd>
          ${workload.vpa === null
            ? 'none'
            : `${workload.vpa.name}, mode ${workload.vpa.mode}${workload.vpa.strategy === null ? '' : `, strategy ${workload.vpa.strategy}`}`}
        </dd>
        <dt>HPA</dt>
        <dd>
          ${workload.hpa === null
            ? 'none'
            : `${workload.hpa.name}: ${workload.hpa.currentReplicas} running, ${workload.hpa.desiredReplicas} desired (${workload.hpa.minReplicas}–${workload.hpa.maxReplicas})`}
        </dd>
        <dt>A native HPA would run</dt>
        <dd>
          ${workload.nativeEquivalentReplicas ??
          workload.nativeEquivalentReason ??
          '—'}
        </dd>
        <dt>Declared</dt>
        <dd>${formatPerContainer(workload.declared)}</dd>
        <dt>Requests now</dt>
        <dd>${formatPerContainer(workload.current)}</dd>
        <dt>VPA target</dt>
        <dd>${formatPerContainer(workload.vpa?.target ?? {})}</dd>
        <dt>Usage (mean a pod)</dt>
        <dd>${formatPerContainer(workload.usage)}</dd>
      </dl>
      <h2>Over time</h2>
      ${rangeLinks(history)}
      ${history.missing === undefined
        ? []
        : html`<p class="notice" role="status">
            Older history is missing: ${history.missing}
          </p>`}
      ${plots.length === 0 ? html`<p>No samples yet.</p>` : plots}
      <h2>Recommended resources</h2>
      ${yaml === undefined
        ? html`<p>The VPA has no recommendation yet.</p>`
        : html`<pre id="recommended-yaml" tabindex="0">${yaml}</pre>
            <button type="button" class="copy" data-copy="recommended-yaml">
              Copy YAML
            </button>`}
      <h2>Decisions</h2>
      ${timeline.length === 0
        ? html`<p>No events about this workload's objects yet.</p>`
        : html`<table class="timeline">
            <caption class="visually-hidden">
              Events about the workload, its VPA, its HPA and its pods, newest
              first
            </caption>
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                <th scope="col">By</th>
                <th scope="col">Object</th>
                <th scope="col">Reason</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              ${timeline}
            </tbody>
          </table>`}`,
  );
}

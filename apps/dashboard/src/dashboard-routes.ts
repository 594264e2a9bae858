import express, { type Response, type Router } from 'express';
import {
  fleetPage,
  historyStepMs,
  historyView,
  isFleetSort,
  joinHistory,
  workloadKey,
  workloadPage,
  type FleetSampler,
  type HistoryPoint,
  type Html,
  type ObservedEvent,
  type WorkloadLabels,
  workloadsJson,
} from '@tandem/dashboard-core';
import { describeError } from '@tandem/kube';
import type { QueryRange } from '@tandem/prometheus-api';
import { DASHBOARD_CSS, DASHBOARD_JS } from './assets.js';
import { encodedJson } from './encoded-json.js';

/**
 * No inline script or style, nothing from elsewhere: what a cluster string could smuggle
 * into a page cannot run even if it got past the escaping.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export interface DashboardRoutesOptions {
  sampler: FleetSampler;
  /** Events about the named objects of one namespace. */
  eventsAbout(namespace: string, names: ReadonlySet<string>): ObservedEvent[];
  /** The pods a workload's last sample matched, by name. */
  podNamesOf(key: string): readonly string[];
  /** How far back the in-memory history goes (`--history`). */
  memoryMs: number;
  /** History past memory's (`--prometheus-url`); none without it. */
  olderHistory?: OlderHistory | undefined;
  now?: () => number;
}

export interface OlderHistory {
  /** One workload's exported history over the range; rejects with why it could not. */
  read(workload: WorkloadLabels, range: QueryRange): Promise<HistoryPoint[]>;
  /** No step finer than this is worth asking for (the sample interval). */
  minStepMs: number;
}

function sendPage(response: Response, page: Html): void {
  response.status(200).type('html').send(page.text);
}

/** The pages, their assets and `/api/`: read-only, GET and HEAD. */
export function dashboardRoutes(options: DashboardRoutesOptions): Router {
  const { sampler, olderHistory, memoryMs, now = Date.now } = options;
  const router = express.Router();
  router.use((_request, response, next) => {
    response.set({
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    });
    next();
  });
  router.get('/assets/dashboard.css', (_request, response) => {
    response.type('css').send(DASHBOARD_CSS);
  });
  router.get('/assets/dashboard.js', (_request, response) => {
    response.type('js').send(DASHBOARD_JS);
  });
  router.get('/', (request, response) => {
    const query = request.query;
    const sort =
      typeof query['sort'] === 'string' && isFleetSort(query['sort'])
        ? query['sort']
        : 'drift';
    const namespace =
      typeof query['namespace'] === 'string' && query['namespace'] !== ''
        ? query['namespace']
        : undefined;
    const descending =
      query['order'] === undefined
        ? sort === 'drift'
        : query['order'] === 'desc';
    const page = Number(query['page'] ?? 1);
    sendPage(
      response,
      fleetPage(sampler.summaries(), { namespace, sort, descending, page }),
    );
  });
  router.get('/api/workloads', (request, response) => {
    const body = encodedJson(workloadsJson(sampler));
    response.vary('Accept-Encoding').type('json');
    if (request.acceptsEncodings('gzip') === 'gzip')
      response.set('Content-Encoding', 'gzip').send(body.gzip);
    else response.send(body.identity);
  });
  router.get(
    [
      '/workloads/:namespace/:kind/:name',
      '/api/workloads/:namespace/:kind/:name',
    ],
    async (request, response) => {
      const { namespace, kind, name } = request.params as {
        namespace: string;
        kind: string;
        name: string;
      };
      const workload = sampler
        .summaries()
        .find(
          (w) =>
            w.namespace === namespace && w.kind === kind && w.name === name,
        );
      if (workload === undefined) {
        response
          .status(404)
          .type('text')
          .send(`no VPA or HPA targets ${kind} ${namespace}/${name}\n`);
        return;
      }
      const key = workloadKey(namespace, { kind, name });
      const view = historyView(
        request.query['range'],
        memoryMs,
        olderHistory !== undefined,
      );
      const endMs = now();
      const startMs = endMs - view.range.ms;
      const inMemory = sampler.history(key)?.since(startMs) ?? [];
      let points = inMemory;
      let missing: string | undefined;
      if (olderHistory !== undefined && view.range.ms > memoryMs) {
        const stepMs = historyStepMs(view.range.ms, olderHistory.minStepMs);
        try {
          points = joinHistory(
            await olderHistory.read(
              { namespace, kind, workload: name },
              { startMs, endMs, stepMs },
            ),
            inMemory,
          );
        } catch (error) {
          missing = describeError(error);
        }
      }
      const names = new Set([
        name,
        ...(workload.vpa === null ? [] : [workload.vpa.name]),
        ...(workload.hpa === null ? [] : [workload.hpa.name]),
        ...options.podNamesOf(key),
      ]);
      const events = options.eventsAbout(namespace, names);
      if (request.path.startsWith('/api/'))
        response.json({
          workload,
          range: view.range.name,
          history: points,
          historyMissing: missing ?? null,
          events,
        });
      else
        sendPage(
          response,
          workloadPage(workload, { points, view, missing }, events),
        );
    },
  );
  return router;
}

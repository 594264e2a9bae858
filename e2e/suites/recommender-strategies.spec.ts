import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  toContainerRecommendations,
  type ResourceAmounts,
} from '@tandem/estimators';
import {
  STRATEGY_ANNOTATION,
  STRATEGY_STATE_ANNOTATION,
  vpaStrategy,
  type StrategyRecommendation,
} from '@tandem/strategies';
import { parseMemoryBytes, VPA_API_VERSION, VPA_KIND } from '@tandem/vpa-api';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { httpGet } from '../harness/http.ts';
import { httpStatusOf } from '../harness/kube.ts';
import { kubectl } from '../harness/kustomize.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  startRecommender,
  type RecommenderProcess,
} from '../harness/recommender-process.ts';
import {
  vpaObjects,
  type Checkpoint,
  type ContainerRecommendation,
  type Resources,
} from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import {
  deleteWebhookConfiguration,
  useRegisteredWebhook,
} from '../harness/webhook-process.ts';
import { runDeployment } from '../harness/workloads.ts';

// ADR 0026 end to end: the webhook the API server calls refuses a VPA whose strategy
// annotations do not read, and the recommender process runs the strategy each VPA names.
// Host processes and kwok's usage annotations: the local control plane only.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('strategies');
let namespace: string;
const vpas = vpaObjects(kube, () => namespace);
let recommender: RecommenderProcess;

/**
 * Steady usage, so that every CPU and memory sample of the recommender lands in one
 * histogram bucket whatever the sampling: 500 m in [477 m, 511 m), 500 MiB in
 * [511 MB, 547 MB). The targets are then exact, and the suite computes them with
 * @tandem/strategies from the same usage.
 */
const USAGE = { cpu: 500, memory: 500 * 1024 * 1024 };
/** What the pods declare, which vivo shapes its numbers with. */
const DECLARED: ResourceAmounts = { cpu: 800, memory: 1024 * 1024 * 1024 };
/** Not upstream, so that the VPA that falls back visibly runs the flag's strategy. */
const DEFAULT_STRATEGY = 'vivo';

/** One VPA per strategy, and upstream again with a parameter, on the same Deployment. */
const ANNOTATED: Record<string, Record<string, string>> = {
  upstream: { [STRATEGY_ANNOTATION]: 'upstream' },
  'upstream-margin': {
    [STRATEGY_ANNOTATION]: 'upstream',
    'tandem.dev/margin': '0.5',
  },
  tandem: { [STRATEGY_ANNOTATION]: 'tandem' },
  vivo: { [STRATEGY_ANNOTATION]: 'vivo' },
  autopilot: { [STRATEGY_ANNOTATION]: 'autopilot' },
};
/** A VPA created before the webhook was registered, with a strategy that does not exist. */
const LEGACY = 'legacy';
const LEGACY_PROBLEM =
  "metadata.annotations[tandem.dev/strategy]: unknown strategy 'autopilto': choose one of upstream, autopilot, vivo, tandem";

const MINUTE_MS = 60_000;

/**
 * What the strategy these annotations name recommends for the suite's container after
 * samples of USAGE at `sampleTimesMs`, as of `nowMs`, in the status's quantities: what
 * `tandem replay` computes, so the recommender's numbers are checked against the library.
 */
function recommended(
  annotations: Record<string, string>,
  sampleTimesMs: readonly number[],
  nowMs: number,
): { quantities: Resources; amounts: StrategyRecommendation } {
  const read = vpaStrategy(annotations, DEFAULT_STRATEGY);
  if ('error' in read) throw new Error(read.error);
  const model = read.strategy.model(sampleTimesMs[0] ?? nowMs);
  for (const timeMs of sampleTimesMs)
    model.addUsage(timeMs, USAGE.cpu, USAGE.memory);
  const amounts = model.recommend(nowMs, DECLARED);
  const [recommendation] = toContainerRecommendations(
    new Map([['app', amounts]]),
  );
  return { quantities: recommendation?.target ?? {}, amounts };
}

/** Two samples a minute apart, read a minute later: no strategy's target depends on more. */
const SAMPLES_MS = [0, MINUTE_MS];
const target = (annotations: Record<string, string>) =>
  recommended(annotations, SAMPLES_MS, 2 * MINUTE_MS).quantities;

/** Waits until every named VPA has a recommendation for container `app`. */
async function recommendationsOf(
  names: readonly string[],
): Promise<Record<string, ContainerRecommendation>> {
  const found: Record<string, ContainerRecommendation> = {};
  for (const name of names)
    found[name] = (
      await vpas.waitForRecommendation(
        name,
        `the recommender to recommend for VPA ${name}`,
        { context: () => `recommender output tail:\n${recommender.tail(15)}` },
      )
    ).recommendation;
  return found;
}

/** A VPA manifest `kubectl apply` sends, with `annotations`. */
function vpaManifest(name: string, annotations: Record<string, string>) {
  return {
    apiVersion: VPA_API_VERSION,
    kind: VPA_KIND,
    metadata: { name, namespace, annotations },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      updatePolicy: { updateMode: 'Off' },
    },
  };
}

/** `kubectl apply -f` of the manifest: its stderr when refused, else a failure. */
async function applyRefused(manifest: object): Promise<string> {
  const file = join(
    mkdtempSync(join(tmpdir(), 'tandem-e2e-strategies-')),
    'vpa.json',
  );
  writeFileSync(file, JSON.stringify(manifest));
  try {
    const stdout = await kubectl('apply', '-f', file);
    throw new Error(`kubectl apply was expected to fail, it said: ${stdout}`);
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    if (typeof stderr !== 'string') throw error;
    return stderr.replaceAll(file, '<file>');
  }
}

/**
 * What kubectl prints when the API server relays the webhook's refusal (422 Invalid): one
 * `<field>: <message>` per cause, the field being the annotation at fault.
 */
const refusal = (name: string, message: string) =>
  `The VerticalPodAutoscaler "${name}" is invalid: ${message}\n`;

describeLocal(
  'the recommender runs the strategy each VPA names, behind the webhook that validates it',
  () => {
    let startedMs: number;

    // Before the webhook is registered: the Deployment, and a VPA the webhook would refuse.
    beforeAll(async () => {
      namespace = currentNamespace();
      startedMs = Date.now();
      await installTandemCrds(kube);
      await deleteWebhookConfiguration(kube);
      await runDeployment(kube, namespace, {
        name: 'web',
        replicas: 1,
        cpuRequest: `${DECLARED.cpu}m`,
        memoryRequest: `${DECLARED.memory}`,
        initialUsage: { cpu: `${USAGE.cpu}m`, memory: `${USAGE.memory}` },
      });
      await vpas.createVpa(
        LEGACY,
        'web',
        {},
        {
          [STRATEGY_ANNOTATION]: 'autopilto',
        },
      );
    });
    useRegisteredWebhook(kube);
    // Through the webhook, which lets every valid annotation in.
    beforeAll(async () => {
      for (const [name, annotations] of Object.entries(ANNOTATED))
        await vpas.createVpa(name, 'web', {}, annotations);
      recommender = await startRecommender({
        kubeconfig: clusterKubeconfig(),
        intervalSeconds: 2,
        extraArgs: [`--default-strategy=${DEFAULT_STRATEGY}`],
      });
    });

    it('a VPA annotated with each strategy gets that strategy’s recommendation from the running recommender', async () => {
      const live = await recommendationsOf(Object.keys(ANNOTATED));
      const targets = Object.fromEntries(
        Object.entries(live).map(([name, { target }]) => [name, target]),
      );

      // upstream (587m / 628694953, as recommender.spec.ts has it), tandem and vivo: exact.
      expect({
        upstream: targets['upstream'],
        'upstream-margin': targets['upstream-margin'],
        tandem: targets['tandem'],
        vivo: targets['vivo'],
      }).toEqual({
        upstream: target(ANNOTATED['upstream'] ?? {}),
        'upstream-margin': target(ANNOTATED['upstream-margin'] ?? {}),
        tandem: target(ANNOTATED['tandem'] ?? {}),
        vivo: target(ANNOTATED['vivo'] ?? {}),
      });
      expect(targets['upstream']).toEqual({ cpu: '587m', memory: '628694953' });
      // margin 0.5: the same bucket end as upstream's 15 %, times 1.5 instead of 1.15.
      expect(targets['upstream-margin']).toEqual({
        cpu: '766m',
        memory: '820036896',
      });
      // vivo before a day of history: declared × 0.5 for CPU, memory as declared.
      expect(targets['vivo']).toEqual({ cpu: '400m', memory: '1Gi' });

      // autopilot: CPU from its own decaying histogram (the same bucket end), memory the
      // decayed maximum of what was used plus 15 %: a little below 1.15 × 500 MiB, where
      // upstream takes its bucket's end.
      const autopilot = targets['autopilot'];
      const elapsedMs = Date.now() - startedMs;
      const fresh = recommended(
        ANNOTATED['autopilot'] ?? {},
        SAMPLES_MS,
        MINUTE_MS,
      );
      const decayed = recommended(
        ANNOTATED['autopilot'] ?? {},
        SAMPLES_MS,
        MINUTE_MS + elapsedMs,
      );
      expect(autopilot?.cpu).toBe(fresh.quantities.cpu);
      const autopilotMemory = parseMemoryBytes(autopilot?.memory ?? 'NaN');
      expect(fresh.amounts.target.memory).toBe(602_931_200);
      expect(autopilotMemory).toBeLessThanOrEqual(fresh.amounts.target.memory);
      expect(autopilotMemory).toBeGreaterThanOrEqual(
        decayed.amounts.target.memory,
      );
      expect(autopilotMemory).toBeLessThan(
        parseMemoryBytes(targets['upstream']?.memory ?? 'NaN'),
      );

      // Its state rides in its checkpoint: version 1, for autopilot, holding the usage.
      let checkpoint: Checkpoint | undefined;
      const stateText = await waitFor(
        `checkpoint ${namespace}/autopilot-app with the ${STRATEGY_STATE_ANNOTATION} annotation`,
        async () => {
          checkpoint = await vpas.readCheckpoint('autopilot-app');
          return checkpoint?.metadata.annotations?.[STRATEGY_STATE_ANNOTATION];
        },
        { timeoutMs: 60_000 },
        async () =>
          `${JSON.stringify(checkpoint?.metadata ?? 'no checkpoint')}; recommender output tail:\n${recommender.tail(15)}`,
      );
      const state = JSON.parse(stateText) as {
        version?: unknown;
        strategy?: unknown;
        state?: { memoryMax?: { value?: unknown }; lastMemoryBytes?: unknown };
      };
      expect({ version: state.version, strategy: state.strategy }).toEqual({
        version: 1,
        strategy: 'autopilot',
      });
      expect(state.state?.memoryMax?.value).toBe(USAGE.memory);
      expect(state.state?.lastMemoryBytes).toBe(USAGE.memory);
      // tandem's rides in its checkpoint too: the history clock (no gap yet, so nothing
      // skipped) and the recommendation its hold band compares the next ones with.
      const tandemText = await waitFor(
        `checkpoint ${namespace}/tandem-app with the ${STRATEGY_STATE_ANNOTATION} annotation`,
        async () =>
          (await vpas.readCheckpoint('tandem-app'))?.metadata.annotations?.[
            STRATEGY_STATE_ANNOTATION
          ],
        { timeoutMs: 60_000 },
        async () => `recommender output tail:\n${recommender.tail(15)}`,
      );
      expect(JSON.parse(tandemText)).toMatchObject({
        version: 1,
        strategy: 'tandem',
        state: {
          clock: { skippedMs: 0 },
          held: {
            target: recommended(
              ANNOTATED['tandem'] ?? {},
              SAMPLES_MS,
              2 * MINUTE_MS,
            ).amounts.target,
          },
        },
      });
      // The others keep upstream's checkpoint only.
      expect(
        (await vpas.readCheckpoint('upstream-app'))?.metadata.annotations?.[
          STRATEGY_STATE_ANNOTATION
        ],
      ).toBeUndefined();
    });

    it('an unknown strategy is refused at `kubectl apply` with the message', async () => {
      expect(
        await applyRefused(
          vpaManifest('misspelt', { [STRATEGY_ANNOTATION]: 'autopilto' }),
        ),
      ).toBe(refusal('misspelt', LEGACY_PROBLEM));
      expect(
        await applyRefused(
          vpaManifest('bad-margin', {
            [STRATEGY_ANNOTATION]: 'upstream',
            'tandem.dev/margin': 'lots',
          }),
        ),
      ).toBe(
        refusal(
          'bad-margin',
          "metadata.annotations[tandem.dev/margin]: strategy 'upstream' parameter 'margin': 'lots' is not a number",
        ),
      );
      // The Status the API server relays carries the webhook's own message.
      const created = await vpas
        .createVpa(
          'misspelt',
          'web',
          {},
          { [STRATEGY_ANNOTATION]: 'autopilto' },
        )
        .then(
          () => ({ status: 201, message: undefined }),
          (error: unknown) => ({
            status: httpStatusOf(error),
            message: (
              JSON.parse(String((error as { body?: unknown }).body)) as {
                message?: string;
              }
            ).message,
          }),
        );
      expect(created).toEqual({
        status: 422,
        message: `admission webhook "vpa.k8s.io" denied the request: ${LEGACY_PROBLEM}`,
      });
      const names = await kubectl(
        'get',
        'verticalpodautoscalers.autoscaling.k8s.io',
        '-n',
        namespace,
        '-o',
        'name',
      );
      expect(names).not.toMatch(/misspelt|bad-margin/);
    });

    it('a VPA that got in before the webhook gets a StrategyFallback Warning event and the default strategy’s recommendation', async () => {
      const event = await waitFor(
        `a StrategyFallback Warning event on VPA ${namespace}/${LEGACY}`,
        async () =>
          (
            await kube.core.listNamespacedEvent({
              namespace,
              fieldSelector: `involvedObject.kind=VerticalPodAutoscaler,involvedObject.name=${LEGACY},reason=StrategyFallback`,
            })
          ).items[0],
        { timeoutMs: 60_000 },
        async () => `recommender output tail:\n${recommender.tail(15)}`,
      );
      expect({ type: event.type, message: event.message }).toEqual({
        type: 'Warning',
        message: `${STRATEGY_ANNOTATION} not used, running the default strategy '${DEFAULT_STRATEGY}': ${LEGACY_PROBLEM}`,
      });
      const { [LEGACY]: legacy } = await recommendationsOf([LEGACY]);
      expect(legacy?.target).toEqual(
        target({ [STRATEGY_ANNOTATION]: DEFAULT_STRATEGY }),
      );

      // VPAs per strategy, the fallback counted apart.
      const expected = [
        ['upstream', 'false', 2],
        ['tandem', 'false', 1],
        ['vivo', 'false', 1],
        ['autopilot', 'false', 1],
        [DEFAULT_STRATEGY, 'true', 1],
      ] as const;
      let body = '';
      await waitFor(
        'tandem_recommender_vpa_strategies to count every VPA in /metrics',
        async () => {
          body = (await httpGet(`${recommender.url}/metrics`)).body;
          return expected.every(([strategy, fallback, count]) =>
            body.includes(
              `tandem_recommender_vpa_strategies{strategy="${strategy}",fallback="${fallback}"} ${count}\n`,
            ),
          )
            ? true
            : undefined;
        },
        { timeoutMs: 30_000 },
        async () =>
          body
            .split('\n')
            .filter((line) => line.startsWith('tandem_recommender_vpa_'))
            .join('\n'),
      );
    });
  },
);

import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import { admit } from './admit.js';
import {
  contextWith,
  patched,
  patchOf,
  vpaReview,
  vpaWith,
} from './admission.fixtures.js';
import type { AdmissionResult } from './admission-types.js';

const valid = (): VerticalPodAutoscaler =>
  vpaWith(undefined, { mode: 'Recreate' });

function withUpdatePolicy(
  updatePolicy: Record<string, unknown>,
): VerticalPodAutoscaler {
  const vpa = valid();
  vpa.spec.updatePolicy = updatePolicy as never;
  return vpa;
}

function expectDenied(result: AdmissionResult, message: string): void {
  expect(result).toMatchObject({
    httpStatus: 200,
    resource: 'VPA',
    outcome: 'error',
    message: `VPA invalid: ${message}`,
    namespace: 'demo',
    vpaName: 'web',
  });
  expect(result.review?.response).toMatchObject({
    uid: 'uid-1',
    allowed: false,
    status: { status: 'Failure', code: 422, reason: 'Invalid', message },
  });
  expect(result.review?.response.patch).toBeUndefined();
}

function annotated(annotations: Record<string, string>): VerticalPodAutoscaler {
  const vpa = valid();
  vpa.metadata = { ...vpa.metadata, annotations };
  return vpa;
}

describe('admit: VPA validation', () => {
  it('accepts a known strategy with its parameters', async () => {
    const result = await admit(
      vpaReview(
        annotated({
          'tandem.dev/strategy': 'autopilot',
          'tandem.dev/cpu-half-life': '6h',
        }),
      ),
      contextWith(),
    );
    expect(result).toMatchObject({ outcome: 'skipped', message: 'VPA valid' });
  });

  it('rejects an unknown strategy, naming the ones that exist', async () => {
    const result = await admit(
      vpaReview(annotated({ 'tandem.dev/strategy': 'autopilto' })),
      contextWith(),
    );
    expectDenied(
      result,
      "metadata.annotations[tandem.dev/strategy]: unknown strategy 'autopilto': choose one of upstream, autopilot, vivo, tandem",
    );
    // The annotation is the cause's field: kubectl prints `<field>: <message>` per cause.
    expect(result.review?.response.status?.details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.annotations[tandem.dev/strategy]',
        message:
          "unknown strategy 'autopilto': choose one of upstream, autopilot, vivo, tandem",
      },
    ]);
  });

  it('rejects a parameter the strategy does not have', async () => {
    const result = await admit(
      vpaReview(
        annotated({
          'tandem.dev/strategy': 'vivo',
          'tandem.dev/coeficient': '0.3',
        }),
      ),
      contextWith(),
    );
    expectDenied(
      result,
      "metadata.annotations[tandem.dev/coeficient]: strategy 'vivo' has no parameter 'coeficient' (it has coefficient, multiplier, memory, history)",
    );
  });

  it('accepts a valid VPA unchanged', async () => {
    const result = await admit(vpaReview(valid()), contextWith());
    expect(result).toMatchObject({
      resource: 'VPA',
      outcome: 'skipped',
      message: 'VPA valid',
      vpaName: 'web',
    });
    expect(result.review?.response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('rejects an unknown update mode with 422 Invalid and the field error', async () => {
    const result = await admit(
      vpaReview(withUpdatePolicy({ updateMode: 'Sometimes' })),
      contextWith(),
    );
    const message =
      'spec.updatePolicy.updateMode: Unsupported value: "Sometimes": supported values: "InPlace", "InPlaceOrRecreate", "Initial", "Off", "Recreate"';
    expectDenied(result, message);
    expect(result.review?.response.status?.details).toEqual({
      name: 'web',
      group: 'autoscaling.k8s.io',
      kind: 'VerticalPodAutoscaler',
      causes: [
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.updatePolicy.updateMode',
          message:
            'Unsupported value: "Sometimes": supported values: "InPlace", "InPlaceOrRecreate", "Initial", "Off", "Recreate"',
        },
      ],
    });
  });

  it('joins several field errors with "; "', async () => {
    const vpa = withUpdatePolicy({ updateMode: 'Recreate', minReplicas: 0 });
    vpa.spec.recommenders = [{ name: 'a' }, { name: 'b' }];
    const result = await admit(vpaReview(vpa), contextWith());
    expectDenied(
      result,
      'spec.updatePolicy.minReplicas: Invalid value: 0: minReplicas has to be positive; spec.recommenders: Too many: 2: must have at most 1 item',
    );
  });

  it('PerVPAConfig fields are refused with the gate off and accepted with it on', async () => {
    const vpa = withUpdatePolicy({
      updateMode: 'Recreate',
      evictAfterOOMSeconds: 300,
    });
    const refused = await admit(vpaReview(vpa), contextWith());
    expectDenied(
      refused,
      'spec.updatePolicy.evictAfterOOMSeconds: Forbidden: not supported when feature flag PerVPAConfig is disabled',
    );
    const accepted = await admit(
      vpaReview(vpa),
      contextWith({ featureGates: { PerVPAConfig: true } }),
    );
    expect(accepted).toMatchObject({
      outcome: 'skipped',
      message: 'VPA valid',
    });
    expect(accepted.review?.response.allowed).toBe(true);
  });

  it('InPlace needs its gate on create, but an update may keep it', async () => {
    const vpa = withUpdatePolicy({ updateMode: 'InPlace' });
    expectDenied(
      await admit(vpaReview(vpa), contextWith()),
      'spec.updatePolicy.updateMode: Forbidden: in order to use UpdateMode InPlace, you must enable feature gate InPlace in the admission-controller args',
    );
    const update = await admit(vpaReview(vpa, 'UPDATE', vpa), contextWith());
    expect(update.review?.response.allowed).toBe(true);
  });

  it('passes validation warnings on (deprecated Auto mode)', async () => {
    const result = await admit(
      vpaReview(withUpdatePolicy({ updateMode: 'Auto' })),
      contextWith(),
    );
    expect(result.review?.response.allowed).toBe(true);
    expect(result.review?.response.warnings).toEqual([
      expect.stringMatching(/^spec\.updatePolicy: "Auto" mode is deprecated/),
    ]);
  });

  it('defaults a missing updatePolicy to Recreate, as upstream', async () => {
    const vpa = vpaWith(undefined);
    const result = await admit(vpaReview(vpa), contextWith());
    expect(result).toMatchObject({
      outcome: 'applied',
      message: 'VPA valid; spec.updatePolicy defaulted to updateMode Recreate',
    });
    expect(patchOf(result)).toEqual([
      {
        op: 'add',
        path: '/spec/updatePolicy',
        value: { updateMode: 'Recreate' },
      },
    ]);
    expect(patched(vpa, result)).toEqual({
      ...vpa,
      spec: { ...vpa.spec, updatePolicy: { updateMode: 'Recreate' } },
    });
  });

  it('denies a VPA without spec, naming the field', async () => {
    expectDenied(
      await admit(vpaReview({ metadata: { name: 'web' } }), contextWith()),
      'spec: Required value',
    );
  });

  it.each([
    ['DELETE', {}, 'operation DELETE: only CREATE and UPDATE are validated'],
    [
      'a status update',
      { operation: 'UPDATE', subResource: 'status' },
      'autoscaling.k8s.io/v1 verticalpodautoscalers/status: subresources are not validated',
    ],
  ])('%s is allowed unchecked', async (_case, overrides, message) => {
    const body = vpaReview({ spec: 'garbage' }, 'DELETE') as {
      request: Record<string, unknown>;
    };
    Object.assign(body.request, overrides);
    const result = await admit(body, contextWith());
    expect(result).toMatchObject({
      resource: 'VPA',
      outcome: 'skipped',
      message,
    });
    expect(result.review?.response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('allows, with a warning, a CREATE that carries no object', async () => {
    const result = await admit(vpaReview(undefined), contextWith());
    expect(result).toMatchObject({
      outcome: 'error',
      message: 'malformed review: request.object missing for CREATE',
    });
    expect(result.review?.response.allowed).toBe(true);
  });
});

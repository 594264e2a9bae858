import { httpStatusOf } from './kube.ts';
import type { VpaObjects } from './vpa-objects.ts';

/** What upstream's webhook answers a VPA whose maxAllowed is below its minAllowed. */
export const UPSTREAM_INVALID_VPA_MESSAGE =
  /admission webhook "vpa.k8s.io" denied the request: .*maxAllowed.cpu.*max resource for cpu is lower than min/;

/**
 * Creates a VPA the webhook must refuse (maxAllowed below minAllowed) and returns the API
 * server's answer: the HTTP status and the Status message, or a status of 201 when created.
 */
export async function createInvalidVpa(
  vpas: VpaObjects,
  name: string,
  target: string,
): Promise<{ status: number | undefined; message: string | undefined }> {
  try {
    await vpas.createVpa(name, target, {
      resourcePolicy: {
        containerPolicies: [
          {
            containerName: 'app',
            minAllowed: { cpu: '2' },
            maxAllowed: { cpu: '1' },
          },
        ],
      },
    });
    return { status: 201, message: undefined };
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    const parsed = JSON.parse(String(body ?? '{}')) as { message?: string };
    return { status: httpStatusOf(error), message: parsed.message };
  }
}

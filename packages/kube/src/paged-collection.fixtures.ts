import type { KubernetesObject } from '@kubernetes/client-node';
import type { GetJson } from './connection/kube-request.js';

/** The API server's message for an expired continue token (k8s.io/apiserver's storage). */
export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

/**
 * One collection served as the API server pages it: `limit` items from the offset in the
 * `continue` token, that token in `metadata.continue` while items are left, the snapshot's
 * resourceVersion on every page. Tests change `items` and `resourceVersion` between lists
 * and make the next continue tokens expire (410) with `expireNext`.
 */
export class PagedCollection {
  /** The path and query of every GET, in order. */
  readonly seen: string[] = [];
  private expiring = 0;

  constructor(
    public items: KubernetesObject[],
    public resourceVersion: string,
  ) {}

  /** The next `count` requests carrying a continue token answer 410 Gone. */
  expireNext(count: number): void {
    this.expiring = count;
  }

  /** The answer to one GET, as the stand-in API server takes it. */
  answer(path: string): { status: number; body: unknown } {
    this.seen.push(path);
    const query = new URL(path, 'http://api.invalid').searchParams;
    const limit = Number(query.get('limit') ?? '0');
    const token = query.get('continue');
    if (token !== null && this.expiring > 0) {
      this.expiring -= 1;
      return {
        status: 410,
        body: {
          kind: 'Status',
          status: 'Failure',
          reason: 'Expired',
          code: 410,
          message: EXPIRED_CONTINUE_MESSAGE,
        },
      };
    }
    const from = token === null ? 0 : Number(token.split(':')[1]);
    const to = limit > 0 ? from + limit : this.items.length;
    return {
      status: 200,
      body: {
        kind: 'List',
        apiVersion: 'v1',
        metadata: {
          resourceVersion: this.resourceVersion,
          ...(to < this.items.length
            ? { continue: `${this.resourceVersion}:${to}` }
            : {}),
        },
        items: this.items.slice(from, to),
      },
    };
  }

  /** A `GetJson` over `answer`, failing as `kubeGetJson` does (the status as `code`). */
  readonly get: GetJson = async (path) => {
    const { status, body } = this.answer(path);
    if (status < 300) return structuredClone(body);
    throw Object.assign(new Error(`GET ${path}: HTTP ${status}`), {
      code: status,
    });
  };
}

/** A named object in namespace `ns`, with managedFields as the API server writes them. */
export function managedObject(name: string, rv = '1'): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      namespace: 'ns',
      name,
      uid: `uid-${name}`,
      resourceVersion: rv,
      labels: { app: 'web' },
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
        },
      ],
    },
  };
}

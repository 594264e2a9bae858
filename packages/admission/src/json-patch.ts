import { describeError } from './text.js';

/** The only JSON Patch operation the webhook emits: upstream patches pods and VPAs with `add`. */
export interface AddOperation {
  op: 'add';
  path: string;
  value: unknown;
}

/** Characters RFC 6901 escapes in a reference token. */
const NEEDS_ESCAPE = /[~/]/;

/** A JSON Pointer from raw segments, escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`). */
export function jsonPointer(
  ...segments: ReadonlyArray<string | number>
): string {
  let pointer = '';
  for (const segment of segments) {
    const text = String(segment);
    // Nearly every segment (field names, indexes) has nothing to escape.
    pointer += NEEDS_ESCAPE.test(text)
      ? `/${text.replaceAll('~', '~0').replaceAll('/', '~1')}`
      : `/${text}`;
  }
  return pointer;
}

/** The `patch` field of an AdmissionResponse: the operations as JSON, base64-encoded. */
export function encodePatch(operations: readonly AddOperation[]): string {
  return Buffer.from(JSON.stringify(operations), 'utf8').toString('base64');
}

/**
 * Why `operations` would not apply to `document`, or undefined when they apply cleanly.
 * The API server fails the whole request when a webhook's patch does not apply, so every
 * patch is tried first; `document` itself is not changed.
 */
export function patchProblem(
  document: object,
  operations: readonly AddOperation[],
): string | undefined {
  const applied = withAdds(document, operations);
  return 'problem' in applied ? applied.problem : undefined;
}

/**
 * `document` with `operations` applied as RFC 6902's `add` says, on a copy-on-write view:
 * only the containers on an operation's path are copied (shallowly), so applying costs
 * the patch's size, not the pod's, and `document` and the operations' values are never
 * changed. Or the first operation that does not apply, and why.
 */
export function withAdds(
  document: object,
  operations: readonly AddOperation[],
): { document: unknown } | { problem: string } {
  try {
    const view = new CopyOnWrite(document);
    for (const [index, operation] of operations.entries()) {
      const problem = view.add(operation);
      if (problem !== undefined)
        return {
          problem: `operation ${index} (${String(operation.op)} ${String(operation.path)}): ${problem}`,
        };
    }
    return { document: view.document };
  } catch (error) {
    // Only a value no JSON could hold (a cycle) gets here; the pod is then left as it came.
    return { problem: describeError(error) };
  }
}

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** An array index as JSON Patch libraries read it: decimal digits only. */
const ARRAY_INDEX = /^\d+$/;

/** The document as the operations so far left it, sharing every part they did not touch. */
class CopyOnWrite {
  /** The root sits in a holder, so that replacing it (path "") is an ordinary write. */
  readonly #holder: { root: unknown };
  /** Containers this view made (copies, and the holder): the only ones it writes into. */
  readonly #owned = new Set<object>();

  get document(): unknown {
    return this.#holder.root;
  }

  constructor(document: object) {
    this.#holder = { root: document };
    this.#owned.add(this.#holder);
  }

  /** Applies one `add`; a string says why it cannot be applied (the view is then unusable). */
  add(operation: AddOperation): string | undefined {
    if ((operation.op as string) !== 'add')
      return `only add operations are checked, not ${String(operation.op)}`;
    if (typeof operation.path !== 'string') return 'the path is not a string';
    if (operation.path !== '' && !operation.path.startsWith('/'))
      return 'the path does not start with /';
    if (containsUndefined(operation.value))
      return 'the value is or holds undefined, which JSON cannot carry';
    if (operation.path === '') {
      this.#holder.root = operation.value;
      return undefined;
    }
    const tokens = operation.path.slice(1).split('/').map(unescapeToken);
    if (tokens.includes('__proto__'))
      return 'the path names __proto__, which no pod or VPA field is called';
    let parent: Container = this.#holder;
    let key = 'root';
    for (let depth = 0; depth < tokens.length; depth += 1) {
      const child = this.#writable(parent, key);
      if (child === undefined)
        return `${pointerOf(tokens.slice(0, depth))} is not an object or an array`;
      parent = child;
      key = tokens[depth] ?? '';
      if (depth < tokens.length - 1 && !has(parent, key))
        return `${pointerOf(tokens.slice(0, depth + 1))} does not exist`;
    }
    return insert(parent, key, operation.value);
  }

  /** `parent[key]` as a container this view owns (copied on first write); undefined if not a container. */
  #writable(parent: Container, key: string): Container | undefined {
    const child = (parent as Record<string, unknown>)[key];
    if (!isContainer(child)) return undefined;
    if (this.#owned.has(child)) return child;
    const copy: Container = Array.isArray(child) ? [...child] : { ...child };
    this.#owned.add(copy);
    (parent as Record<string, unknown>)[key] = copy;
    return copy;
  }
}

/** Whether the existing member or element `key` of `container` may be walked through. */
function has(container: Container, key: string): boolean {
  if (!Array.isArray(container)) return Object.hasOwn(container, key);
  return ARRAY_INDEX.test(key) && Number(key) < container.length;
}

/** RFC 6902 `add` into its target's parent: a member set, or an element inserted. */
function insert(
  parent: Container,
  key: string,
  value: unknown,
): string | undefined {
  if (!Array.isArray(parent)) {
    parent[key] = value;
    return undefined;
  }
  const index =
    key === '-' ? parent.length : ARRAY_INDEX.test(key) ? Number(key) : -1;
  if (index < 0) return `${key} is not an array index`;
  if (index > parent.length)
    return `index ${index} is past the end of an array of ${parent.length}`;
  parent.splice(index, 0, value);
  return undefined;
}

function containsUndefined(value: unknown): boolean {
  if (value === undefined) return true;
  if (!isContainer(value)) return false;
  for (const member of Object.values(value))
    if (containsUndefined(member)) return true;
  return false;
}

/** A reference token unescaped (RFC 6901: `~1` → `/`, then `~0` → `~`). */
function unescapeToken(token: string): string {
  return token.includes('~')
    ? token.replaceAll('~1', '/').replaceAll('~0', '~')
    : token;
}

function pointerOf(tokens: readonly string[]): string {
  return tokens.length === 0 ? 'the document' : jsonPointer(...tokens);
}

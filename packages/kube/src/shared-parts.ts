/**
 * Hands back a part equal to `part` (same JSON) that is already held, or `part` itself,
 * frozen, when none is. Many cached objects are alike in everything but their name: the
 * pods of one ReplicaSet carry the same labels, controller reference, containers'
 * resources and status, so a reducer that passes each kept part through one `SharePart`
 * holds each distinct part once, however many objects carry it.
 */
export type SharePart = <T extends object>(part: T) => T;

/**
 * A `SharePart` whose parts are held weakly: a part no cached object holds any more is
 * collected with its last holder, and its entry goes with it (a FinalizationRegistry), so
 * the table never outgrows what is cached. Parts are deep-frozen, because every holder
 * sees the same one; they must be plain JSON data.
 */
export function sharedParts(): SharePart {
  const held = new Map<string, WeakRef<object>>();
  const forget = new FinalizationRegistry<string>((key) => {
    // The key may already name a newer equal part, registered after this one was dropped.
    if (held.get(key)?.deref() === undefined) held.delete(key);
  });
  return <T extends object>(part: T): T => {
    const key = JSON.stringify(part);
    const known = held.get(key)?.deref();
    if (known !== undefined) return known as T;
    deepFreeze(part);
    held.set(key, new WeakRef(part));
    forget.register(part, key);
    return part;
  };
}

function deepFreeze(value: object): void {
  Object.freeze(value);
  for (const inner of Object.values(value))
    if (typeof inner === 'object' && inner !== null && !Object.isFrozen(inner))
      deepFreeze(inner as object);
}

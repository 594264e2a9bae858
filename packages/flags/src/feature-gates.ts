import { FlagError } from './flag-values.js';

export interface KnownFeatureGate {
  /** The gate's value when the flag does not name it. */
  default: boolean;
  /** False when Tandem lacks the gate's behaviour: turning it on is refused by name. */
  implemented: boolean;
}

/**
 * `--feature-gates=A=true,B=false`, as Kubernetes components read it: every name must be a
 * known gate and every value true or false. A gate whose behaviour Tandem lacks may be set
 * to false (upstream manifests do so) but turning it on is refused, naming the gate, rather
 * than silently ignored.
 */
export function parseFeatureGates<Name extends string>(
  text: string,
  known: Readonly<Record<Name, KnownFeatureGate>>,
): Record<Name, boolean> {
  const gates = Object.fromEntries(
    Object.entries<KnownFeatureGate>(known).map(([name, gate]) => [
      name,
      gate.default,
    ]),
  ) as Record<Name, boolean>;
  const names = Object.keys(known).sort().join(', ');
  for (const item of text.split(',')) {
    const entry = item.trim();
    if (entry === '') continue;
    const match = /^([A-Za-z0-9]+)=(.*)$/.exec(entry);
    if (match === null)
      throw new FlagError(
        `--feature-gates: '${entry}' is not Name=true or Name=false`,
      );
    const [, name = '', value = ''] = match;
    if (!Object.hasOwn(known, name))
      throw new FlagError(
        `--feature-gates: unknown feature gate '${name}' (known: ${names})`,
      );
    if (value !== 'true' && value !== 'false')
      throw new FlagError(
        `--feature-gates: ${name} must be true or false, got '${value}'`,
      );
    const gate = known[name as Name];
    if (value === 'true' && !gate.implemented)
      throw new FlagError(
        `--feature-gates: ${name}=true is not supported by Tandem yet (its behaviour is not implemented)`,
      );
    gates[name as Name] = value === 'true';
  }
  return gates;
}

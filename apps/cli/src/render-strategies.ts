import {
  parameterText,
  STRATEGIES,
  type ParameterSpec,
} from '@tandem/strategies';

/** `tandem replay --list-strategies`: each strategy, its summary and its parameters. */
export function renderStrategyList(): string {
  const lines = [
    'static     the declared sizes (replay only; needs --capacity)',
  ];
  for (const definition of STRATEGIES) {
    lines.push(`${definition.name.padEnd(10)} ${definition.summary}`);
    for (const [name, spec] of Object.entries(definition.parameters))
      lines.push(
        `             ${`${name}=${fallbackText(spec)}`.padEnd(32)} ${spec.summary}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

/** The fallback as its annotation would be written; memory in MiB, easier to read. */
function fallbackText(spec: ParameterSpec): string {
  const value = spec.fallback;
  return spec.kind === 'memory' && typeof value === 'number'
    ? `${value / 1024 / 1024}Mi`
    : parameterText(spec, value);
}

/**
 * Parses the KEY=VALUE lines the control-plane scripts print (dotenv syntax, values
 * unquoted). Blank lines and `#` comments are skipped; anything else is an error, so a
 * script that prints noise on stdout is caught here rather than as a missing key later.
 */
export function parseEnvLines(text: string): Map<string, string> {
  const values = new Map<string, string>();
  text.split('\n').forEach((rawLine, index) => {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match === null)
      throw new Error(
        `line ${index + 1} is not KEY=VALUE: ${JSON.stringify(rawLine)}`,
      );
    values.set(match[1] ?? '', match[2] ?? '');
  });
  return values;
}

export function requireEnvValue(
  values: ReadonlyMap<string, string>,
  key: string,
): string {
  const value = values.get(key);
  if (value === undefined || value === '')
    throw new Error(`the control plane did not report ${key}`);
  return value;
}

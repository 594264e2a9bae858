const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'] as const;

/** CPU for people: whole millicores below one core, cores with two decimals above. */
export function humanCpu(millicores: number): string {
  return millicores < 1000
    ? `${millicores}m`
    : `${(millicores / 1000).toFixed(2)}`;
}

/** Memory for people: the largest binary unit that keeps the number at or above 1. */
export function humanMemory(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BINARY_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0
    ? `${value} B`
    : `${value.toFixed(1)} ${BINARY_UNITS[unit]}`;
}

import { humanCpu, humanMemory } from './human-units.js';

describe('human units', () => {
  it.each([
    [0, '0m'],
    [587, '587m'],
    [999, '999m'],
    [1000, '1.00'],
    [1174, '1.17'],
    [1e14, '100000000000.00'],
  ])('cpu %d millicores → %s', (millicores, text) =>
    expect(humanCpu(millicores)).toBe(text),
  );

  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [262144000, '250.0 MiB'],
    [628694953, '599.6 MiB'],
    [1e14, '90.9 TiB'],
  ])('memory %d bytes → %s', (bytes, text) =>
    expect(humanMemory(bytes)).toBe(text),
  );
});

import { exp2LikeGo, integerPowerLikeGo, logLikeGo } from './go-math.js';

// Expected values were produced by Go 1.26 on linux/amd64 (math.Log, math.Exp2, math.Pow).
// Every input here is one where V8's Math.log / Math.pow round the last bit differently,
// which is the reason these kernels exist.

describe('logLikeGo', () => {
  it.each([
    [713493.983319563, 13.477929283234971],
    [665655.1337204614, 13.408526998172338],
    [47973.71643874967, 10.778408565723815],
    [714119.4355437553, 13.478805504004466],
  ])('log(%p) is Go’s %p, not V8’s', (x, expected) => {
    expect(logLikeGo(x)).toBe(expected);
    expect(Math.log(x)).not.toBe(expected);
  });

  it('handles the special values like Go', () => {
    expect(logLikeGo(1)).toBe(0);
    expect(logLikeGo(0)).toBe(-Infinity);
    expect(logLikeGo(-1)).toBeNaN();
    expect(logLikeGo(Number.NaN)).toBeNaN();
    expect(logLikeGo(Infinity)).toBe(Infinity);
    expect(logLikeGo(Math.E)).toBe(1);
  });
});

describe('exp2LikeGo', () => {
  it.each([
    [3.5805638750912436, 11.963468978477668],
    [-54.6890594877094, 3.4431239680027476e-17],
    [-28.745384685789276, 2.222168426568429e-9],
    [-74.41111111111111, 3.9812875414743136e-23],
  ])('2^%p is Go’s %p, not V8’s', (x, expected) => {
    expect(exp2LikeGo(x)).toBe(expected);
    expect(2 ** x).not.toBe(expected);
  });

  it('is exact for integers and saturates like Go', () => {
    for (let k = -1074; k <= 1023; k += 7) expect(exp2LikeGo(k)).toBe(2 ** k);
    expect(exp2LikeGo(1023.9)).toBe(Math.pow(2, 1023.9));
    expect(exp2LikeGo(1024)).toBe(Infinity);
    expect(exp2LikeGo(-1075)).toBe(0);
    expect(exp2LikeGo(Number.NaN)).toBeNaN();
  });

  it('gives the decay factors of vector 11 (half a half-life either way)', () => {
    expect(0.1 * exp2LikeGo(-0.5)).toBe(0.07071067811865475);
    expect(0.1 * exp2LikeGo(0.5)).toBe(0.1414213562373095);
  });
});

describe('integerPowerLikeGo', () => {
  it.each([
    [3.6691358745257436, 16, 1078998189.151937],
    [2.3148500877786837, -34, 4.0385214145399367e-13],
    [24.755274579970386, 51, 1.1941397010005087e71],
    [20.385727337300324, -16, 1.1240370373718575e-21],
  ])('%p^%p is Go’s %p, not V8’s', (base, exponent, expected) => {
    expect(integerPowerLikeGo(base, exponent)).toBe(expected);
    expect(Math.pow(base, exponent)).not.toBe(expected);
  });

  it('matches the bucket growth Go computes (1.05^26)', () => {
    expect(integerPowerLikeGo(1.05, 26)).not.toBe(Math.pow(1.05, 26));
  });

  it('follows Go for 0th powers, infinities and zero bases', () => {
    expect(integerPowerLikeGo(Number.NaN, 0)).toBe(1);
    expect(integerPowerLikeGo(Infinity, -2)).toBe(0);
    expect(integerPowerLikeGo(Infinity, 1)).toBe(Infinity);
    expect(integerPowerLikeGo(0, -1)).toBe(Infinity);
    expect(integerPowerLikeGo(-0, -3)).toBe(-Infinity);
  });

  it('refuses fractional exponents', () => {
    expect(() => integerPowerLikeGo(2, 0.5)).toThrow(
      new RangeError(
        'integerPowerLikeGo: exponent must be an integer, got 0.5',
      ),
    );
  });
});

import type { ResourceAmounts } from '@tandem/estimators';
import { autopilot } from './autopilot.js';
import type { UsageModel } from './strategy.js';
import { model, T0 } from './strategy.fixtures.js';
import { tandem } from './tandem.js';
import { upstream } from './upstream.js';
import { vivo } from './vivo.js';

const STEP = 5 * 60_000;
const HOUR = 3_600_000;
const MIB = 1024 * 1024;
const SAMPLES_PER_DAY = 288;
/** Three days of 5-minute samples. */
const THREE_DAYS = 3 * SAMPLES_PER_DAY;
const LAST = T0 + (THREE_DAYS - 1) * STEP;
const DECLARED: ResourceAmounts = { cpu: 1000, memory: 1024 * MIB };

/**
 * Sample i: CPU cycles 100, 150, 200, 250 m; memory is 400 MiB in the first half of each
 * day and 600 MiB in the second, so the last sample of day 3 is at the 600 MiB peak.
 */
function feed(model: UsageModel, samples: number): void {
  for (let i = 0; i < samples; i++)
    model.addUsage(
      T0 + i * STEP,
      100 + 50 * (i % 4),
      (i % SAMPLES_PER_DAY < SAMPLES_PER_DAY / 2 ? 400 : 600) * MIB,
    );
}

describe('golden vectors: three days of a 4-step CPU cycle and a 400/600 MiB day', () => {
  it('upstream', () => {
    const upstreamModel = model(upstream);
    feed(upstreamModel, THREE_DAYS);
    // p90 of the CPU histogram: the bucket holding 250 m (up to 257 m) + 15 % = 296 m;
    // p90 of three 600 MiB daily peaks: their bucket (up to 633.6 MiB) + 15 %.
    expect(upstreamModel.recommend(LAST, DECLARED)).toEqual({
      target: { cpu: 296, memory: 764046746 },
      lowerBound: { cpu: 246, memory: 761506276 },
      upperBound: { cpu: 789, memory: 2037457989 },
    });
  });

  it('tandem', () => {
    const tandemModel = model(tandem);
    feed(tandemModel, THREE_DAYS);
    // p75 of the CPU histogram: 200 m and 250 m samples share the quantile's edge, and the
    // estimator takes the bucket holding 250 m (up to 257 m), no margin; p80 of three
    // 600 MiB daily peaks: their bucket (up to 633.6 MiB) + 5 %.
    expect(tandemModel.recommend(LAST, DECLARED)).toEqual({
      target: { cpu: 258, memory: 697607898 },
      lowerBound: { cpu: 214, memory: 695288338 },
      upperBound: { cpu: 688, memory: 1860287728 },
    });
  });

  it('autopilot: memory is the decayed max (600 MiB) + 15 %, truncated; bounds ±10 %', () => {
    const autopilotModel = model(autopilot);
    feed(autopilotModel, THREE_DAYS);
    // 629145600 × 1.15 = 723517440; × 0.9 = 651165696; × 1.1 = 795869184.
    expect(autopilotModel.recommend(LAST, DECLARED)).toEqual({
      target: { cpu: 296, memory: 723517440 },
      lowerBound: { cpu: 266, memory: 651165696 },
      upperBound: { cpu: 325, memory: 795869184 },
    });
  });

  it('autopilot: memory falls by half over its 48 h half-life, CPU stays', () => {
    const autopilotModel = model(autopilot);
    feed(autopilotModel, THREE_DAYS);
    // 300 MiB × 1.15 = 361758720.
    expect(autopilotModel.recommend(LAST + 48 * HOUR, DECLARED).target).toEqual(
      { cpu: 296, memory: 361758720 },
    );
  });

  it('autopilot: an OOM bumps the last usage (max(600 + 100 MiB, 600 MiB × 1.2)) and adds 15 %', () => {
    const autopilotModel = model(autopilot);
    feed(autopilotModel, THREE_DAYS);
    autopilotModel.recordOom(LAST, 250 * MIB);
    // 720 MiB = 754974720; × 1.15 = 868220928.
    expect(autopilotModel.recommend(LAST, DECLARED).target.memory).toBe(
      868220928,
    );
  });

  it('autopilot floors at the container minimum (25 m, 250 MiB) with no usage', () => {
    const autopilotModel = model(autopilot);
    expect(autopilotModel.recommend(T0, undefined).target).toEqual({
      cpu: 25,
      memory: 250 * MIB,
    });
  });

  it("vivo after a day: upstream's CPU under the declared size, memory as declared", () => {
    const vivoModel = model(vivo);
    feed(vivoModel, THREE_DAYS);
    expect(vivoModel.recommend(LAST, DECLARED)).toEqual({
      target: { cpu: 296, memory: DECLARED.memory },
      lowerBound: { cpu: 246, memory: DECLARED.memory },
      upperBound: { cpu: 789, memory: DECLARED.memory },
    });
  });

  it('vivo caps every figure at the declared size', () => {
    const vivoModel = model(vivo);
    feed(vivoModel, THREE_DAYS);
    const small = { cpu: 200, memory: 300 * MIB };
    expect(vivoModel.recommend(LAST, small)).toEqual({
      target: small,
      lowerBound: small,
      upperBound: small,
    });
  });

  it("vivo with multiplier=2,memory=true doubles upstream's figures, still capped", () => {
    const vivoModel = model(vivo, { multiplier: '2', memory: 'true' });
    feed(vivoModel, THREE_DAYS);
    const roomy = { cpu: 1000, memory: 2048 * MIB };
    // Upstream's figures (above) doubled: 296 → 592, 764046746 → 1528093492; the upper
    // bounds (789 m, 1.9 GiB) doubled pass the declared size and stop there.
    expect(vivoModel.recommend(LAST, roomy)).toEqual({
      target: { cpu: 592, memory: 1528093492 },
      lowerBound: { cpu: 492, memory: 1523012552 },
      upperBound: roomy,
    });
  });

  it('vivo before a day of history: declared × 0.5, memory as declared, bounds equal', () => {
    const vivoModel = model(vivo);
    feed(vivoModel, SAMPLES_PER_DAY); // the last sample is 23 h 55 min after the first
    const young = { cpu: 500, memory: DECLARED.memory };
    expect(
      vivoModel.recommend(T0 + (SAMPLES_PER_DAY - 1) * STEP, DECLARED),
    ).toEqual({ target: young, lowerBound: young, upperBound: young });
    // ...and at exactly a day after the first sample, the coefficient gives way.
    expect(vivoModel.recommend(T0 + 24 * HOUR, DECLARED).target.cpu).not.toBe(
      500,
    );
  });

  it('vivo before any sample, with memory=true and coefficient=0.25', () => {
    const vivoModel = model(vivo, { memory: 'true', coefficient: '0.25' });
    const quarter = { cpu: 250, memory: 256 * MIB };
    expect(vivoModel.recommend(T0, DECLARED)).toEqual({
      target: quarter,
      lowerBound: quarter,
      upperBound: quarter,
    });
  });

  it('vivo floors at the container minimum, unless the declared size is below it', () => {
    const vivoModel = model(vivo, { memory: 'true', coefficient: '0.01' });
    const floored = { cpu: 25, memory: 250 * MIB };
    expect(vivoModel.recommend(T0, DECLARED).target).toEqual(floored);
    const tiny = { cpu: 10, memory: 100 * MIB };
    expect(vivoModel.recommend(T0, tiny).target).toEqual(tiny);
  });

  it("vivo without a declared size gives upstream's recommendation", () => {
    const vivoModel = model(vivo);
    const upstreamModel = model(upstream);
    feed(vivoModel, 100);
    feed(upstreamModel, 100);
    expect(vivoModel.recommend(T0 + 99 * STEP, undefined)).toEqual(
      upstreamModel.recommend(T0 + 99 * STEP, undefined),
    );
  });
});

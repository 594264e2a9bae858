import { element, px, text } from './svg.js';

export interface LegendEntry {
  /** Markup drawn in a 24 × 12 box whose top left is the origin. */
  readonly swatch: string;
  readonly label: string;
}

/** Rough width of a 12 px sans-serif character: enough to space entries, no font metrics. */
const CHARACTER_WIDTH = 6.8;
const SWATCH_WIDTH = 24;
const ROW_HEIGHT = 20;
const GAP = 22;

/** Entries left to right from (`left`, `top`), wrapping to a new row at `width`. */
export function legend(
  left: number,
  top: number,
  width: number,
  entries: readonly LegendEntry[],
): string {
  let x = 0;
  let y = 0;
  return entries
    .map((entry) => {
      const entryWidth =
        SWATCH_WIDTH + 6 + entry.label.length * CHARACTER_WIDTH;
      if (x > 0 && x + entryWidth > width) {
        x = 0;
        y += ROW_HEIGHT;
      }
      const drawn = element(
        'g',
        { transform: `translate(${px(left + x)} ${px(top + y)})` },
        entry.swatch + text(SWATCH_WIDTH + 6, 10, entry.label),
      );
      x += entryWidth + GAP;
      return drawn;
    })
    .join('\n');
}

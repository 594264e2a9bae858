import { element, type Attributes } from '@tandem/svg-plot';

/** Okabe and Ito's colour-blind-safe palette, without its yellow, which white washes out. */
const PALETTE = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
] as const;

/** The colour of the strategy at `index` in the command's order, the same in every chart. */
export function strategyColour(index: number): string {
  return PALETTE[index % PALETTE.length] ?? '#000000';
}

/** Dashes by strategy, so that strategies whose lines coincide all show through. */
const DASHES = ['', '9 4', '3 3', '12 3 3 3'] as const;

/** How the strategy at `index` strokes its lines: its colour, and its dashes after the first. */
export function strategyStroke(index: number): Attributes {
  const dashes = DASHES[index % DASHES.length] ?? '';
  return {
    stroke: strategyColour(index),
    ...(dashes === '' ? {} : { 'stroke-dasharray': dashes }),
  };
}

/** Where the page's content starts and ends across. */
export const PAGE = { width: 1200, left: 90, right: 1150 } as const;

/** A legend swatch: a short line as the strategy at `index` draws it. */
export function lineSwatch(index: number): string {
  return element('line', {
    x1: 0,
    x2: 24,
    y1: 6,
    y2: 6,
    ...strategyStroke(index),
    'stroke-width': 2.5,
  });
}

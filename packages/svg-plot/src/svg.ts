/**
 * Text-level SVG: elements, escaping and numbers, so every chart writes the same bytes for
 * the same input (docs/decisions/0025-hand-made-svg-plots.md).
 */

export type Attributes = Readonly<Record<string, string | number>>;

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** `text` safe inside an element or a quoted attribute. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character] ?? '');
}

/** A coordinate rounded to 0.1 px: finer is invisible and only makes the file larger. */
export function px(value: number): string {
  // `+ 0` turns the -0 that rounding a small negative gives into 0.
  return String(Math.round(value * 10) / 10 + 0);
}

/** `<name a="v"...>children</name>`; numbers are coordinates, strings are escaped. */
export function element(
  name: string,
  attributes: Attributes,
  children?: string,
): string {
  const written = Object.entries(attributes)
    .map(
      ([key, value]) =>
        ` ${key}="${typeof value === 'number' ? px(value) : escapeXml(value)}"`,
    )
    .join('');
  return children === undefined
    ? `<${name}${written}/>`
    : `<${name}${written}>${children}</${name}>`;
}

/** A `<text>` holding `content` as text, never as markup. */
export function text(
  x: number,
  y: number,
  content: string,
  attributes: Attributes = {},
): string {
  return element('text', { x, y, ...attributes }, escapeXml(content));
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

/** A straight line through the points, as a path's `d`. */
export function linePath(points: readonly Point[]): string {
  return points
    .map((point, i) => `${i === 0 ? 'M' : 'L'}${px(point.x)} ${px(point.y)}`)
    .join('');
}

/**
 * A step line: each point's value holds until the next point's x, the last one until
 * `endX`. Values that do not change write no vertical move.
 */
export function stepPath(points: readonly Point[], endX: number): string {
  const [first, ...rest] = points;
  if (first === undefined) return '';
  let d = `M${px(first.x)} ${px(first.y)}`;
  let y = px(first.y);
  for (const point of rest) {
    const nextY = px(point.y);
    if (nextY === y) continue;
    d += `H${px(point.x)}V${nextY}`;
    y = nextY;
  }
  return `${d}H${px(endX)}`;
}

/**
 * The `<svg>` element: a white page `width` × `height` holding `body`, inside an HTML page
 * as it is or, with `svgDocument`, a file of its own. `attributes` adds to the root (an
 * inline plot's `role` and `aria-label`).
 */
export function svgElement(
  width: number,
  height: number,
  body: readonly string[],
  attributes: Attributes = {},
): string {
  return element(
    'svg',
    {
      xmlns: 'http://www.w3.org/2000/svg',
      width,
      height,
      viewBox: `0 0 ${px(width)} ${px(height)}`,
      'font-family': 'Helvetica, Arial, sans-serif',
      'font-size': 12,
      ...attributes,
    },
    ['', element('rect', { width, height, fill: 'white' }), ...body, ''].join(
      '\n',
    ),
  );
}

/** The whole document: a white page `width` × `height` holding `body`. */
export function svgDocument(
  width: number,
  height: number,
  body: readonly string[],
): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${svgElement(width, height, body)}\n`;
}

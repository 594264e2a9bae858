export {
  element,
  escapeXml,
  linePath,
  px,
  stepPath,
  svgDocument,
  svgElement,
  text,
  type Attributes,
  type Point,
} from './svg.js';
export {
  countAxis,
  linearAxis,
  niceTicks,
  panel,
  type Axis,
  type Frame,
  type Panel,
  type Tick,
} from './svg-panel.js';
export { legend, type LegendEntry } from './svg-legend.js';

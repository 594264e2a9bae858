import {
  element,
  escapeXml,
  linePath,
  px,
  stepPath,
  svgDocument,
  text,
} from './svg.js';

describe('svg', () => {
  it('escapes the five XML specials in text and attributes', () => {
    expect(escapeXml(`<a href="x">Tom & 'Jerry'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;',
    );
    expect(text(1, 2, 'a<b', { class: '"q"' })).toBe(
      '<text x="1" y="2" class="&quot;q&quot;">a&lt;b</text>',
    );
  });

  it('rounds coordinates to 0.1 px, never writing -0', () => {
    expect(px(12.345)).toBe('12.3');
    expect(px(12.35)).toBe('12.4');
    expect(px(-0.04)).toBe('0');
    expect(px(100)).toBe('100');
    expect(element('circle', { cx: 1.06, r: 2 })).toBe(
      '<circle cx="1.1" r="2"/>',
    );
  });

  it('draws straight and step lines, a step only where the value changes', () => {
    const points = [
      { x: 0, y: 10 },
      { x: 5, y: 10 },
      { x: 8, y: 4 },
    ];
    expect(linePath(points)).toBe('M0 10L5 10L8 4');
    expect(stepPath(points, 12)).toBe('M0 10H8V4H12');
    expect(stepPath([], 12)).toBe('');
  });

  it('wraps the body in one white page with its size', () => {
    const document = svgDocument(100, 50, ['<g/>']);
    expect(document).toContain('viewBox="0 0 100 50"');
    expect(document).toContain('<rect width="100" height="50" fill="white"/>');
    expect(document.endsWith('</svg>\n')).toBe(true);
  });
});

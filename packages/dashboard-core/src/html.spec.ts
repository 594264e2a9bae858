import fc from 'fast-check';
import { escapeHtml, html, trustedMarkup } from './html.js';

describe('html', () => {
  it('escapes every interpolated string, in text and in attributes', () => {
    const name = `<img src=x onerror="alert(1)">&'`;
    expect(html`<td title="${name}">${name}</td>`.text).toBe(
      '<td title="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;</td>',
    );
  });

  it('nests html and arrays of it as they are, and leaves out null, undefined and false', () => {
    const rows = ['a', '<b>'].map((name) => html`<li>${name}</li>`);
    const absent = [null, undefined, false];
    // Prettier lays an html`` template out as HTML; the whitespace it adds is not the point.
    const list = html`<ul>
      ${rows}${absent}${0}
    </ul>`.text.replace(/\s+/g, '');
    expect(list).toBe('<ul><li>a</li><li>&lt;b&gt;</li>0</ul>');
    expect(html`${trustedMarkup('<svg/>')}`.text).toBe('<svg/>');
  });

  it('never lets a string open a tag or end an attribute', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const escaped = escapeHtml(text);
        return !/[<>"']/.test(escaped) && html`${text}`.text === escaped;
      }),
    );
  });
});

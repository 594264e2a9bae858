/**
 * The page's stylesheet and script, served from the dashboard itself (no CDN: air-gapped
 * clusters) and never inline (the Content-Security-Policy forbids inline code). The
 * pages work without the script: it only adds copying the recommended YAML.
 */
export const DASHBOARD_CSS = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b; background: #fff; }
body { margin: 0; }
header { background: #17324d; padding: 0.6rem 1.2rem; }
header a { color: #fff; font-weight: 600; text-decoration: none; }
header a:focus-visible, a:focus-visible, button:focus-visible, select:focus-visible, pre:focus-visible { outline: 3px solid #f2b01e; outline-offset: 2px; }
main { padding: 1rem 1.2rem; max-width: 90rem; }
a { color: #0b5394; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 0.5rem; background: #fff; padding: 0.3rem; z-index: 1; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #d0d0d0; padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; }
thead th { background: #eef2f6; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
.kind { color: #555; font-weight: normal; font-size: 0.8rem; }
tr.warning th, tr.warning td { background: #fff4e5; }
.filter { display: flex; gap: 0.5rem; align-items: center; margin: 0.5rem 0 1rem; }
dl.figures { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; }
dl.figures dt { font-weight: 600; }
figure.plot { margin: 0.5rem 0 1rem; }
figure.plot svg { max-width: 100%; height: auto; }
pre { background: #f5f5f5; padding: 0.8rem; overflow: auto; }
button { font: inherit; padding: 0.3rem 0.8rem; }
.pager { display: flex; gap: 1rem; margin: 0.8rem 0; }
`;

export const DASHBOARD_JS = `
'use strict';
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (button === null) return;
  const source = document.getElementById(button.getAttribute('data-copy'));
  if (source === null || navigator.clipboard === undefined) return;
  navigator.clipboard.writeText(source.textContent).then(
    () => { button.textContent = 'Copied'; },
    () => { button.textContent = 'Copy failed: select the text instead'; },
  );
});
`;

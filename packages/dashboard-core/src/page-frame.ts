import { html, type Html } from './html.js';

/**
 * A whole page: no inline script or style (the server's Content-Security-Policy forbids
 * them), one stylesheet and one deferred script served by the dashboard itself.
 */
export function pageFrame(title: string, main: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Tandem</title>
        <link rel="stylesheet" href="/assets/dashboard.css" />
        <script src="/assets/dashboard.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <nav aria-label="Tandem"><a href="/">Tandem · workloads</a></nav>
        </header>
        <main id="main">${main}</main>
      </body>
    </html> `;
}

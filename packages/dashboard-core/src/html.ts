/**
 * HTML built from templates where every interpolated value is text unless it is already
 * `Html`: names, labels, annotations and event messages from the cluster can never become
 * markup (an annotation holding `<script>` shows as those characters).
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? '');
}

type Value =
  | Html
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly Value[];

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value))
    return (value as readonly Value[]).map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<td>${name}</td>\``: `name` is escaped; nested `html` and arrays of it are not. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(text);
}

/**
 * Markup made by code that escapes its own text (`@tandem/svg-plot`'s elements): the one
 * way in for a string that is not escaped here.
 */
export function trustedMarkup(markup: string): Html {
  return new Html(markup);
}

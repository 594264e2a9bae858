import { compileLabelSelector, SelectorError } from '@tandem/vpa-api';

/**
 * Parses `--webhook-labels` (`k1:v1,k2:v2`) as upstream does: surrounding double quotes are
 * dropped, pairs split on `,`, each pair on its first `:`, keys and values trimmed; an empty
 * flag gives no labels. Upstream logs a malformed flag and registers without labels; here it
 * is an error, thrown with the offending pair, as are keys and values the API server would
 * refuse as labels (upstream's registration then fails later, at the API server).
 */
export function parseWebhookLabels(flag: string): Record<string, string> {
  const labels = new Map<string, string>();
  const text = trimQuotes(flag);
  if (text === '') return {};
  for (const pair of text.split(',')) {
    const separator = pair.indexOf(':');
    const key = separator < 0 ? '' : pair.slice(0, separator).trim();
    if (separator < 0 || key === '') {
      throw new Error(
        `--webhook-labels: ${JSON.stringify(pair)} is not key:value (expected "key1:value1,key2:value2")`,
      );
    }
    const value = pair.slice(separator + 1).trim();
    try {
      compileLabelSelector({ matchLabels: { [key]: value } });
    } catch (error) {
      if (!(error instanceof SelectorError)) throw error;
      throw new Error(
        `--webhook-labels: ${JSON.stringify(pair)}: ${error.message.replace(/^invalid label selector: matchLabels\[[^\]]*\]: /, '')}`,
      );
    }
    labels.set(key, value);
  }
  return Object.fromEntries(labels);
}

/** Go's `strings.Trim(s, "\"")`: every leading and trailing double quote. */
function trimQuotes(text: string): string {
  return text.replace(/^"+/, '').replace(/"+$/, '');
}

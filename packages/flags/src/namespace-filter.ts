import { FlagError } from './flag-values.js';

export interface NamespaceFilter {
  /** `--vpa-object-namespace`: only this namespace; undefined means all. */
  only: string | undefined;
  /** `--ignored-vpa-object-namespaces`: comma-separated, never both with `only`. */
  ignored: string[];
}

/** Upstream's two namespace flags, which every VPA component takes and which exclude each other. */
export function parseNamespaceFilter(
  only: string,
  ignored: string,
): NamespaceFilter {
  const ignoredList = ignored.split(',').filter((name) => name !== '');
  if (only !== '' && ignoredList.length > 0)
    throw new FlagError(
      '--vpa-object-namespace and --ignored-vpa-object-namespaces are mutually exclusive',
    );
  return { only: only === '' ? undefined : only, ignored: ignoredList };
}

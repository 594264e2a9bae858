import type { Labels } from '@tandem/vpa-api';

/**
 * The canonical text of a label set, `k1=v1,k2=v2` with keys sorted, as upstream's
 * `labels.Set.String()`. Label keys and values cannot contain `=` or `,`, so the text
 * identifies the set.
 */
export function canonicalLabelText(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((key) => `${key}=${labels[key] ?? ''}`)
    .join(',');
}

/**
 * Hands out one frozen object per distinct label set, so the thousands of pods of a
 * Deployment share their labels (and their aggregates) instead of each holding a copy.
 */
export class LabelSetInterner {
  private readonly byText = new Map<string, Labels>();

  intern(labels: Labels): { readonly text: string; readonly labels: Labels } {
    const text = canonicalLabelText(labels);
    let interned = this.byText.get(text);
    if (interned === undefined) {
      interned = Object.freeze({ ...labels });
      this.byText.set(text, interned);
    }
    return { text, labels: interned };
  }

  /** Forgets label sets nothing refers to any more (called after garbage collection). */
  retainOnly(texts: ReadonlySet<string>): void {
    for (const text of this.byText.keys()) {
      if (!texts.has(text)) this.byText.delete(text);
    }
  }
}

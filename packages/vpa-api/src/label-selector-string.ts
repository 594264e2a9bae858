/**
 * The string form of a label selector (`app=web,tier in (a,b),!canary`), as the scale
 * subresource's `status.selector` and `kubectl -l` carry it, parsed into the structured
 * `LabelSelector` with Kubernetes' grammar.
 */

import {
  compileLabelSelector,
  LabelSelectorOperator,
  SelectorError,
  type LabelSelector,
  type LabelSelectorRequirement,
} from './selector.js';

type Token =
  | { kind: 'word'; text: string }
  | { kind: 'symbol'; text: string }
  | { kind: 'end'; text: '' };

/** Characters that end a word: Kubernetes' selector lexer treats them as operators. */
const SYMBOL_CHARS = new Set(['=', '!', '(', ')', ',', '>', '<']);
const TWO_CHAR_SYMBOLS = new Set(['==', '!=']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text.charAt(at);
    if (/\s/.test(char)) {
      at += 1;
    } else if (SYMBOL_CHARS.has(char)) {
      const pair = text.slice(at, at + 2);
      const symbol = TWO_CHAR_SYMBOLS.has(pair) ? pair : char;
      tokens.push({ kind: 'symbol', text: symbol });
      at += symbol.length;
    } else {
      let end = at;
      while (
        end < text.length &&
        !/\s/.test(text.charAt(end)) &&
        !SYMBOL_CHARS.has(text.charAt(end))
      )
        end += 1;
      tokens.push({ kind: 'word', text: text.slice(at, end) });
      at = end;
    }
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

/** Reads tokens in order; every failure names what was found and what was expected. */
class Reader {
  private at = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  peek(): Token {
    // tokenize() always ends with an `end` token, which is never consumed.
    return this.tokens[this.at] ?? { kind: 'end', text: '' };
  }

  next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.at += 1;
    return token;
  }

  fail(expected: string): never {
    const found = this.peek();
    throw new SelectorError(
      '<selector>',
      `found ${found.kind === 'end' ? 'the end' : JSON.stringify(found.text)}, expected ${expected}`,
    );
  }

  word(expected: string): string {
    const token = this.peek();
    if (token.kind !== 'word') this.fail(expected);
    this.next();
    return token.text;
  }
}

/**
 * Parses a selector string. Requirements are comma-separated and all must hold: `key`,
 * `!key`, `key=value` (also `==`; the value may be empty), `key!=value`,
 * `key in (v1,v2)`, `key notin (v1,v2)`. The empty string selects everything. Throws
 * `SelectorError` for a malformed string, for invalid keys or values, and for `>`/`<`,
 * which a `LabelSelector` cannot express.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const reader = new Reader(tokenize(text));
  if (reader.peek().kind === 'end') return {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (;;) {
    matchExpressions.push(parseRequirement(reader));
    const separator = reader.next();
    if (separator.kind === 'end') break;
    if (separator.text !== ',') {
      throw new SelectorError(
        '<selector>',
        `found ${JSON.stringify(separator.text)}, expected "," or the end`,
      );
    }
  }
  const selector = { matchExpressions };
  // The structured form's own validation checks keys, values and empty `in ()` sets.
  compileLabelSelector(selector);
  return selector;
}

function parseRequirement(reader: Reader): LabelSelectorRequirement {
  if (reader.peek().text === '!') {
    reader.next();
    const key = reader.word('a label key after "!"');
    return { key, operator: LabelSelectorOperator.DoesNotExist };
  }
  const key = reader.word('a label key');
  const operator = reader.peek();
  if (operator.kind === 'end' || operator.text === ',')
    return { key, operator: LabelSelectorOperator.Exists };
  reader.next();
  switch (operator.text) {
    case '=':
    case '==':
      return {
        key,
        operator: LabelSelectorOperator.In,
        values: [exactValue(reader)],
      };
    case '!=':
      return {
        key,
        operator: LabelSelectorOperator.NotIn,
        values: [exactValue(reader)],
      };
    case 'in':
      return { key, operator: LabelSelectorOperator.In, values: set(reader) };
    case 'notin':
      return {
        key,
        operator: LabelSelectorOperator.NotIn,
        values: set(reader),
      };
    case '>':
    case '<':
      throw new SelectorError(
        '<selector>',
        `operator ${JSON.stringify(operator.text)} of ${JSON.stringify(key)} cannot be expressed as a LabelSelector`,
      );
    default:
      throw new SelectorError(
        '<selector>',
        `found ${JSON.stringify(operator.text)} after ${JSON.stringify(key)}, expected "=", "==", "!=", "in", "notin" or ","`,
      );
  }
}

/** The value after `=`, `==` or `!=`: a word, or nothing (the empty value). */
function exactValue(reader: Reader): string {
  const token = reader.peek();
  if (token.kind === 'end' || token.text === ',') return '';
  return reader.word('a label value');
}

/** `(v1, v2, ...)`; an element left empty (`(a,)`) is the empty value, as upstream reads it. */
function set(reader: Reader): string[] {
  if (reader.next().text !== '(') {
    throw new SelectorError('<selector>', 'expected "(" after in/notin');
  }
  const values: string[] = [];
  if (reader.peek().text === ')') {
    reader.next();
    return values;
  }
  for (;;) {
    const token = reader.peek();
    values.push(token.kind === 'word' ? reader.next().text : '');
    const separator = reader.next();
    if (separator.text === ')') return values;
    if (separator.text !== ',') {
      throw new SelectorError(
        '<selector>',
        `found ${separator.kind === 'end' ? 'the end' : JSON.stringify(separator.text)} in a value set, expected "," or ")"`,
      );
    }
  }
}

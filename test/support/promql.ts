/*
 * Reads which series a PromQL expression selects — metric names and label
 * matchers — so tests can hold alerts and dashboard panels to the metrics the
 * webhook registers. Whether an expression is valid PromQL is promtool's
 * check (test/alerts), not this one's: this reader only tokenizes. It accepts
 * Grafana template variables ($var, ${var}, $__rate_interval) wherever a
 * dashboard puts them.
 */

type TokenKind = "ident" | "number" | "duration" | "string" | "variable" | "operator" | "punct";

interface Token {
  readonly kind: TokenKind;
  readonly text: string;
}

export interface LabelMatcher {
  readonly name: string;
  readonly op: "=" | "!=" | "=~" | "!~";
  /** The matcher's value with quotes removed and escapes resolved. */
  readonly value: string;
}

export interface Selector {
  /** The metric name, from the selector's name or its `__name__="…"` matcher. */
  readonly metric: string;
  readonly matchers: readonly LabelMatcher[];
}

/** Keywords followed by a parenthesised list of label names, never series. */
const LABEL_LIST_KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
]);
const KEYWORDS = new Set(["and", "or", "unless", "atan2", "offset", "bool", "inf", "nan"]);

const TOKENS: ReadonlyArray<[RegExp, TokenKind]> = [
  [/^(?:[0-9]+(?:ms|s|m|h|d|w|y))+/, "duration"],
  [/^(?:0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)/, "number"],
  // Recording-rule names contain colons but never start with one.
  [/^[a-zA-Z_][a-zA-Z0-9_:]*/, "ident"],
  [/^\$(?:\{[a-zA-Z0-9_:.]+\}|[a-zA-Z0-9_]+)/, "variable"],
  [/^(?:==|!=|<=|>=|=~|!~|[-+*/%^<>=:@])/, "operator"],
];

/** Splits an expression into tokens; throws on an unterminated string or a stray character. */
function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < expr.length) {
    const rest = expr.slice(at);
    const char = rest[0] ?? "";
    if (/\s/.test(char)) {
      at += 1;
      continue;
    }
    if (char === "#") {
      const end = rest.indexOf("\n");
      at += end === -1 ? rest.length : end;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") {
      const end = closingQuote(rest, char);
      if (end === -1) throw new Error(`unterminated string at ${at} of ${expr}`);
      tokens.push({ kind: "string", text: rest.slice(0, end + 1) });
      at += end + 1;
      continue;
    }
    if ("(){}[],".includes(char)) {
      tokens.push({ kind: "punct", text: char });
      at += 1;
      continue;
    }
    const kind = TOKENS.find(([pattern]) => pattern.test(rest));
    const text = kind?.[0].exec(rest)?.[0];
    if (kind === undefined || text === undefined) {
      throw new Error(`unexpected character ${char} at ${at} of ${expr}`);
    }
    tokens.push({ kind: kind[1], text });
    at += text.length;
  }
  return tokens;
}

function closingQuote(rest: string, quote: string): number {
  for (let i = 1; i < rest.length; i += 1) {
    const char = rest[i];
    if (char === "\\" && quote !== "`") {
      i += 1;
      continue;
    }
    if (char === quote) return i;
  }
  return -1;
}

function unquote(text: string): string {
  const body = text.slice(1, -1);
  if (text.startsWith("`")) return body;
  return body.replace(/\\(.)/g, (_, escaped: string) => escaped);
}

/** Index of the token closing the bracket opened at `open`. */
function closingIndex(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i += 1) {
    const token = tokens[i];
    if (token?.kind !== "punct") continue;
    if ("({[".includes(token.text)) depth += 1;
    else if (")}]".includes(token.text)) depth -= 1;
    if (depth === 0) return i;
  }
  return tokens.length - 1;
}

/** The matchers `name op "value"` inside `{…}` from `open` to `close`. */
function readMatchers(tokens: readonly Token[], open: number, close: number): LabelMatcher[] {
  const matchers: LabelMatcher[] = [];
  for (let i = open + 1; i + 2 < close; i += 4) {
    const [name, op, value] = [tokens[i], tokens[i + 1], tokens[i + 2]];
    if (name?.kind === "ident" && op?.kind === "operator" && value?.kind === "string") {
      matchers.push({
        name: name.text,
        op: op.text as LabelMatcher["op"],
        value: unquote(value.text),
      });
    }
  }
  return matchers;
}

/**
 * Every series selector in an expression: an identifier that is neither a
 * call (followed by `(`), an aggregation (followed by `by`/`without`), a
 * keyword nor in a label list, with its `{…}` matchers; or a bare `{…}` with
 * a `__name__` matcher.
 */
export function promqlSelectors(expr: string): Selector[] {
  const tokens = tokenize(expr);
  const selectors: Selector[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i];
    const next = tokens[i + 1];
    if (token === undefined) break;
    const lower = token.text.toLowerCase();
    if (token.kind === "ident" && LABEL_LIST_KEYWORDS.has(lower)) {
      if (next?.text === "(") i = closingIndex(tokens, i + 1);
      continue;
    }
    if (token.kind === "punct" && token.text === "{") {
      const close = closingIndex(tokens, i);
      const matchers = readMatchers(tokens, i, close);
      const name = matchers.find((matcher) => matcher.name === "__name__" && matcher.op === "=");
      if (name !== undefined) selectors.push({ metric: name.value, matchers });
      i = close;
      continue;
    }
    const isSeries =
      token.kind === "ident" &&
      !KEYWORDS.has(lower) &&
      next?.text !== "(" &&
      !(next?.kind === "ident" && LABEL_LIST_KEYWORDS.has(next.text.toLowerCase()));
    if (!isSeries) continue;
    let matchers: LabelMatcher[] = [];
    if (next?.text === "{") {
      const close = closingIndex(tokens, i + 1);
      matchers = readMatchers(tokens, i + 1, close);
      i = close;
    }
    selectors.push({ metric: token.text, matchers });
  }
  return selectors;
}

/** The distinct metric names an expression selects, sorted. */
export function promqlMetricNames(expr: string): string[] {
  return [...new Set(promqlSelectors(expr).map((selector) => selector.metric))].sort();
}

/**
 * Every `expr` string anywhere in `value`: the alerts of a PrometheusRule, the panels and
 * variables of a dashboard, also where a dashboard is a JSON text inside a ConfigMap.
 */
export function exprsIn(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") {
    if (value.trimStart().startsWith("{")) {
      try {
        exprsIn(JSON.parse(value), into);
      } catch {
        // a plain string that happens to start with a brace
      }
    }
  } else if (Array.isArray(value)) {
    for (const item of value) exprsIn(item, into);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === "expr" && typeof child === "string") into.push(child);
      else exprsIn(child, into);
    }
  }
  return into;
}

/** Series Prometheus writes itself for every scrape target; no exporter registers them. */
export const SCRAPE_SERIES: ReadonlySet<string> = new Set([
  "up",
  "scrape_duration_seconds",
  "scrape_samples_scraped",
  "scrape_samples_post_metric_relabeling",
  "scrape_series_added",
]);

/** A metric family as a registry or a /metrics page describes it. */
export interface MetricFamily {
  readonly name: string;
  readonly type: string;
}

/**
 * The series names a set of metric families exposes: histograms add
 * `_bucket`, `_sum` and `_count`, summaries `_sum` and `_count`.
 */
export function exposedSeriesNames(families: Iterable<MetricFamily>): Set<string> {
  const names = new Set<string>();
  for (const family of families) {
    names.add(family.name);
    if (family.type === "histogram") {
      for (const suffix of ["_bucket", "_sum", "_count"]) names.add(family.name + suffix);
    }
    if (family.type === "summary") {
      for (const suffix of ["_sum", "_count"]) names.add(family.name + suffix);
    }
  }
  return names;
}

/** The family a series name belongs to (`x_bucket` → `x` for a histogram `x`). */
export function familyOfSeries(
  series: string,
  families: Iterable<MetricFamily>,
): MetricFamily | undefined {
  for (const family of families) {
    if (family.name === series) return family;
    if (family.type === "histogram" || family.type === "summary") {
      const suffixes =
        family.type === "histogram" ? ["_bucket", "_sum", "_count"] : ["_sum", "_count"];
      if (suffixes.some((suffix) => family.name + suffix === series)) return family;
    }
  }
  return undefined;
}

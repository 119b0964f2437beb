/*
 * A small PromQL reader for tests: no PromQL parser is installed, so this
 * tokenizes an expression, checks its structure (balanced brackets, closed
 * strings, known functions, selector and range syntax, operator placement)
 * and extracts the metric names and label matchers it selects. It accepts
 * Grafana template variables ($var, ${var}, $__rate_interval) wherever a
 * dashboard would put them.
 */

export type TokenKind =
  | "ident"
  | "number"
  | "duration"
  | "string"
  | "variable"
  | "operator"
  | "punct";

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** Offset in the expression, for error messages. */
  readonly at: number;
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

const AGGREGATIONS = new Set([
  "sum",
  "min",
  "max",
  "avg",
  "group",
  "stddev",
  "stdvar",
  "count",
  "count_values",
  "bottomk",
  "topk",
  "quantile",
  "limitk",
  "limit_ratio",
]);

const FUNCTIONS = new Set([
  "abs",
  "absent",
  "absent_over_time",
  "acos",
  "acosh",
  "asin",
  "asinh",
  "atan",
  "atanh",
  "avg_over_time",
  "ceil",
  "changes",
  "clamp",
  "clamp_max",
  "clamp_min",
  "cos",
  "cosh",
  "count_over_time",
  "day_of_month",
  "day_of_week",
  "day_of_year",
  "days_in_month",
  "deg",
  "delta",
  "deriv",
  "double_exponential_smoothing",
  "end",
  "exp",
  "floor",
  "histogram_avg",
  "histogram_count",
  "histogram_fraction",
  "histogram_quantile",
  "histogram_stddev",
  "histogram_stdvar",
  "histogram_sum",
  "holt_winters",
  "hour",
  "idelta",
  "increase",
  "info",
  "irate",
  "label_join",
  "label_replace",
  "last_over_time",
  "ln",
  "log10",
  "log2",
  "mad_over_time",
  "max_over_time",
  "min_over_time",
  "minute",
  "month",
  "pi",
  "predict_linear",
  "present_over_time",
  "quantile_over_time",
  "rad",
  "rate",
  "resets",
  "round",
  "scalar",
  "sgn",
  "sin",
  "sinh",
  "sort",
  "sort_by_label",
  "sort_by_label_desc",
  "sort_desc",
  "sqrt",
  "start",
  "stddev_over_time",
  "stdvar_over_time",
  "sum_over_time",
  "tan",
  "tanh",
  "time",
  "timestamp",
  "vector",
  "year",
]);

/** Keywords followed by a parenthesised list of label names. */
const LABEL_LIST_KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
]);

const BINARY_KEYWORDS = new Set(["and", "or", "unless", "atan2"]);
const OTHER_KEYWORDS = new Set(["offset", "bool"]);
const LITERAL_KEYWORDS = new Set(["inf", "nan"]);

const BINARY_OPERATORS = new Set(["+", "-", "*", "/", "%", "^", "==", "!=", "<=", ">=", "<", ">"]);
const MATCH_OPERATORS = new Set(["=", "!=", "=~", "!~"]);

const DURATION = /^(?:[0-9]+(?:ms|s|m|h|d|w|y))+/;
const NUMBER = /^(?:0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)/;
// Recording-rule names contain colons but never start with one; a leading
// colon is the subquery separator ("[1h:1m]").
const IDENT = /^[a-zA-Z_][a-zA-Z0-9_:]*/;
const VARIABLE = /^\$(?:\{[a-zA-Z0-9_:.]+\}|[a-zA-Z0-9_]+)/;
const OPERATOR = /^(?:==|!=|<=|>=|=~|!~|[-+*/%^<>=:@])/;

export class PromqlError extends Error {}

/** Splits an expression into tokens; throws PromqlError on an unterminated string or a stray character. */
export function tokenize(expr: string): Token[] {
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
      if (end === -1) throw new PromqlError(`unterminated string at ${at}`);
      tokens.push({ kind: "string", text: rest.slice(0, end + 1), at });
      at += end + 1;
      continue;
    }
    if ("(){}[],".includes(char)) {
      tokens.push({ kind: "punct", text: char, at });
      at += 1;
      continue;
    }
    const match =
      matchToken(rest, DURATION, "duration") ??
      matchToken(rest, NUMBER, "number") ??
      matchToken(rest, IDENT, "ident") ??
      matchToken(rest, VARIABLE, "variable") ??
      matchToken(rest, OPERATOR, "operator");
    if (match === undefined) throw new PromqlError(`unexpected character ${char} at ${at}`);
    // A number glued to letters ("5mm", "1x") is neither a number nor a duration.
    const glued = /^[a-zA-Z_]/.test(rest.slice(match.text.length));
    if ((match.kind === "number" || match.kind === "duration") && glued) {
      throw new PromqlError(`malformed number or duration at ${at}`);
    }
    tokens.push({ ...match, at });
    at += match.text.length;
  }
  return tokens;
}

function matchToken(rest: string, pattern: RegExp, kind: TokenKind): Omit<Token, "at"> | undefined {
  const found = pattern.exec(rest);
  return found ? { kind, text: found[0] } : undefined;
}

function closingQuote(rest: string, quote: string): number {
  for (let i = 1; i < rest.length; i += 1) {
    const char = rest[i];
    if (char === "\\" && quote !== "`") {
      i += 1;
      continue;
    }
    if (char === "\n" && quote !== "`") return -1;
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
  const pairs: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
  const stack: string[] = [];
  for (let i = open; i < tokens.length; i += 1) {
    const token = tokens[i];
    if (token?.kind !== "punct") continue;
    const closer = pairs[token.text];
    if (closer !== undefined) {
      stack.push(closer);
    } else if (token.text === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return i;
    } else if (token.text !== ",") {
      throw new PromqlError(`unbalanced ${token.text} at ${token.at}`);
    }
  }
  throw new PromqlError(`unclosed ${tokens[open]?.text ?? "bracket"} at ${tokens[open]?.at ?? 0}`);
}

function isIdent(token: Token | undefined, text?: string): boolean {
  return token?.kind === "ident" && (text === undefined || token.text.toLowerCase() === text);
}

function isPunct(token: Token | undefined, text: string): boolean {
  return token?.kind === "punct" && token.text === text;
}

/** The matchers inside `{…}` from `open` to `close`; throws on anything else. */
function readMatchers(tokens: readonly Token[], open: number, close: number): LabelMatcher[] {
  const matchers: LabelMatcher[] = [];
  let i = open + 1;
  while (i < close) {
    const name = tokens[i];
    const op = tokens[i + 1];
    const value = tokens[i + 2];
    if (
      name?.kind !== "ident" ||
      op?.kind !== "operator" ||
      !MATCH_OPERATORS.has(op.text) ||
      value?.kind !== "string"
    ) {
      throw new PromqlError(`malformed label matcher at ${name?.at ?? 0}`);
    }
    matchers.push({
      name: name.text,
      op: op.text as LabelMatcher["op"],
      value: unquote(value.text),
    });
    i += 3;
    if (i < close) {
      if (!isPunct(tokens[i], ",")) throw new PromqlError(`expected , at ${tokens[i]?.at ?? 0}`);
      i += 1;
    }
  }
  return matchers;
}

/** Checks the `[…]` of a range or subquery: a duration (or variable), optionally `:` and a resolution. */
function checkRange(tokens: readonly Token[], open: number, close: number): void {
  const inner = tokens.slice(open + 1, close);
  const isSpan = (token: Token | undefined) =>
    token?.kind === "duration" || token?.kind === "variable" || token?.kind === "number";
  const [first, colon, resolution, ...extra] = inner;
  const valid =
    isSpan(first) &&
    (colon === undefined ||
      (colon.kind === "operator" &&
        colon.text === ":" &&
        (resolution === undefined || isSpan(resolution)) &&
        extra.length === 0));
  if (!valid) throw new PromqlError(`malformed range at ${tokens[open]?.at ?? 0}`);
}

/** Checks a `(label, …)` list after by/without/on/ignoring/group_left/group_right. */
function checkLabelList(tokens: readonly Token[], open: number, close: number): void {
  for (let i = open + 1; i < close; i += 1) {
    const token = tokens[i];
    const expectLabel = (i - open) % 2 === 1;
    if (expectLabel ? token?.kind !== "ident" : !isPunct(token, ",")) {
      throw new PromqlError(`malformed label list at ${token?.at ?? 0}`);
    }
  }
}

interface Walk {
  readonly selectors: Selector[];
}

/**
 * Walks the tokens once, checking structure and collecting selectors. Every
 * problem throws a PromqlError naming its offset.
 */
function walk(expr: string): Walk {
  const tokens = tokenize(expr);
  if (tokens.length === 0) throw new PromqlError("empty expression");
  const selectors: Selector[] = [];
  // Whether the previous token ended an operand (so a binary operator may follow).
  let afterOperand = false;
  let i = 0;
  // Brackets are tracked by closingIndex for selectors, ranges and label
  // lists; parentheses of calls and groups are tracked on this stack.
  const parens: number[] = [];
  while (i < tokens.length) {
    const token = tokens[i];
    if (token === undefined) break;
    const next = tokens[i + 1];
    const lower = token.text.toLowerCase();
    if (token.kind === "ident" && LABEL_LIST_KEYWORDS.has(lower)) {
      if (isPunct(next, "(")) {
        const close = closingIndex(tokens, i + 1);
        checkLabelList(tokens, i + 1, close);
        i = close + 1;
      } else if (lower === "group_left" || lower === "group_right") {
        i += 1;
      } else {
        throw new PromqlError(`${token.text} needs a label list at ${token.at}`);
      }
      continue;
    }
    if (token.kind === "ident" && (BINARY_KEYWORDS.has(lower) || OTHER_KEYWORDS.has(lower))) {
      if (lower === "offset") {
        const span = tokens[i + 1];
        const negative = span?.kind === "operator" && span.text === "-";
        const duration = negative ? tokens[i + 2] : span;
        if (!afterOperand || (duration?.kind !== "duration" && duration?.kind !== "variable")) {
          throw new PromqlError(`malformed offset at ${token.at}`);
        }
        i += negative ? 3 : 2;
        continue;
      }
      if (lower === "bool") {
        i += 1;
        continue;
      }
      if (!afterOperand)
        throw new PromqlError(`${token.text} without a left operand at ${token.at}`);
      afterOperand = false;
      i += 1;
      continue;
    }
    if (token.kind === "ident" && isPunct(next, "(")) {
      if (!AGGREGATIONS.has(lower) && !FUNCTIONS.has(lower)) {
        throw new PromqlError(`unknown function ${token.text} at ${token.at}`);
      }
      if (afterOperand)
        throw new PromqlError(`missing operator before ${token.text} at ${token.at}`);
      i += 1;
      continue;
    }
    if (
      token.kind === "ident" &&
      AGGREGATIONS.has(lower) &&
      (isIdent(next, "by") || isIdent(next, "without"))
    ) {
      if (afterOperand)
        throw new PromqlError(`missing operator before ${token.text} at ${token.at}`);
      i += 1;
      continue;
    }
    if (token.kind === "ident" && !LITERAL_KEYWORDS.has(lower)) {
      if (afterOperand)
        throw new PromqlError(`missing operator before ${token.text} at ${token.at}`);
      let matchers: LabelMatcher[] = [];
      let end = i;
      if (isPunct(next, "{")) {
        end = closingIndex(tokens, i + 1);
        matchers = readMatchers(tokens, i + 1, end);
      }
      selectors.push({ metric: token.text, matchers });
      afterOperand = true;
      i = end + 1;
      continue;
    }
    if (isPunct(token, "{")) {
      if (afterOperand) throw new PromqlError(`missing operator before { at ${token.at}`);
      const close = closingIndex(tokens, i);
      const matchers = readMatchers(tokens, i, close);
      const name = matchers.find((matcher) => matcher.name === "__name__" && matcher.op === "=");
      if (name === undefined)
        throw new PromqlError(`selector without a metric name at ${token.at}`);
      selectors.push({ metric: name.value, matchers });
      afterOperand = true;
      i = close + 1;
      continue;
    }
    if (isPunct(token, "[")) {
      if (!afterOperand) throw new PromqlError(`range without a vector at ${token.at}`);
      const close = closingIndex(tokens, i);
      checkRange(tokens, i, close);
      i = close + 1;
      continue;
    }
    if (isPunct(token, "(")) {
      if (afterOperand) throw new PromqlError(`missing operator before ( at ${token.at}`);
      parens.push(i);
      i += 1;
      continue;
    }
    if (isPunct(token, ")")) {
      if (parens.pop() === undefined) throw new PromqlError(`unbalanced ) at ${token.at}`);
      if (!afterOperand && !isPunct(tokens[i - 1], "(")) {
        throw new PromqlError(`dangling operator before ) at ${token.at}`);
      }
      afterOperand = true;
      i += 1;
      continue;
    }
    if (isPunct(token, ",")) {
      if (!afterOperand || parens.length === 0) throw new PromqlError(`misplaced , at ${token.at}`);
      afterOperand = false;
      i += 1;
      continue;
    }
    if (isPunct(token, "]") || isPunct(token, "}")) {
      throw new PromqlError(`unbalanced ${token.text} at ${token.at}`);
    }
    if (token.kind === "operator") {
      const unary = token.text === "-" || token.text === "+";
      if (BINARY_OPERATORS.has(token.text) && (afterOperand || unary)) {
        afterOperand = false;
        i += 1;
        continue;
      }
      if (token.text === "@" && afterOperand) {
        afterOperand = false;
        i += 1;
        continue;
      }
      throw new PromqlError(`misplaced ${token.text} at ${token.at}`);
    }
    // number, duration (a number in seconds in some positions), string, variable, inf/nan
    if (afterOperand) throw new PromqlError(`missing operator before ${token.text} at ${token.at}`);
    afterOperand = true;
    i += 1;
  }
  if (parens.length > 0) throw new PromqlError("unclosed (");
  if (!afterOperand) throw new PromqlError("expression ends with an operator");
  return { selectors };
}

/** Problems found in an expression: empty when it reads as valid PromQL. */
export function checkPromql(expr: string): string[] {
  try {
    walk(expr);
    return [];
  } catch (error) {
    if (error instanceof PromqlError) return [error.message];
    throw error;
  }
}

/** Every series selector in an expression; throws PromqlError when the expression is malformed. */
export function promqlSelectors(expr: string): Selector[] {
  return walk(expr).selectors;
}

/** The distinct metric names an expression selects, sorted; throws PromqlError when malformed. */
export function promqlMetricNames(expr: string): string[] {
  return [...new Set(promqlSelectors(expr).map((selector) => selector.metric))].sort();
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

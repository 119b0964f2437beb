/** Characters of one request value a message or log line repeats: a DNS subdomain (253) fits whole. */
export const ECHO_LIMIT = 256;

/** `value` whole up to `limit`, else its start and its length. */
export function cutShort(value: string, limit = ECHO_LIMIT): string {
  if (value.length <= limit) return value;
  // Never split a surrogate pair: the half left would not be valid UTF-16.
  const last = value.charCodeAt(limit - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit;
  return `${value.slice(0, end)}…(cut from ${value.length} characters)`;
}

// C0 and C1 control characters, DEL, and the line and paragraph separators.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const NAMED_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const escapeCode = (character: string): string =>
  NAMED_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with every control character escaped: the apiserver drops a warning
 * holding one, and a message with one reads as something it is not.
 */
export function withoutControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, escapeCode);
}

const NOT_PRINTABLE_ASCII = /[^\u0020-\u007e]/g;

/** `value` quoted with everything but printable ASCII escaped, so look-alikes show. */
export function quotedSetting(value: string, limit = 64): string {
  return `"${cutShort(value.replace(NOT_PRINTABLE_ASCII, escapeCode), limit)}"`;
}

export const LISTED_PROBLEMS_LIMIT = 10;

/** Characters of one problem with a configuration variable, the value it quotes included. */
const PROBLEM_CHARS = 512;

/**
 * A configuration variable's problems as start-up reports them, bounded and
 * escaped, so no value (an ESC sequence) reaches stderr as it was.
 */
export function boundedProblems(variable: string, problems: readonly string[]): string[] {
  const listed = problems
    .slice(0, LISTED_PROBLEMS_LIMIT)
    .map((problem) => `${variable}: ${cutShort(withoutControlCharacters(problem), PROBLEM_CHARS)}`);
  const more = problems.length - listed.length;
  return more > 0 ? [...listed, `${variable}: … and ${more} more problems`] : listed;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

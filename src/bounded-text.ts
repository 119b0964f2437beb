/**
 * How many characters of one value from a request a message or log line
 * repeats: a DNS subdomain (253) or a service-account username fits whole.
 */
export const ECHO_LIMIT = 256;

/** `value` as an answer or log line repeats it: whole up to `limit`, else its start and its length. */
export function cutShort(value: string, limit = ECHO_LIMIT): string {
  if (value.length <= limit) return value;
  // Never split a surrogate pair: the half left would not be valid UTF-16.
  const end = isHighSurrogate(value.charCodeAt(limit - 1)) ? limit - 1 : limit;
  return `${value.slice(0, end)}…(cut from ${value.length} characters)`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** C0 and C1 control characters, DEL, and the line and paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const escapeCode = (character: string): string => {
  const code = character.charCodeAt(0);
  if (character === "\n") return "\\n";
  if (character === "\r") return "\\r";
  if (character === "\t") return "\\t";
  return `\\u${code.toString(16).padStart(4, "0")}`;
};

/**
 * `text` with every control character escaped (`\n`, `\u0007`): the apiserver
 * drops a warning holding one, and a message with one reads as something it is not.
 */
export function withoutControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, escapeCode);
}

const NOT_PRINTABLE_ASCII = /[^\u0020-\u007e]/g;

/** `value` quoted with everything but printable ASCII escaped: `"mutate\u200b"`, not `"mutate​"`. */
export function quotedSetting(value: string, limit = 64): string {
  return `"${cutShort(value.replace(NOT_PRINTABLE_ASCII, escapeCode), limit)}"`;
}

/** Problems one configuration variable lists before it says how many more it has. */
export const LISTED_PROBLEMS_LIMIT = 10;

/** Characters of one problem with a configuration variable, the value it quotes included. */
const PROBLEM_CHARS = 512;

/**
 * A configuration variable's problems as start-up reports them: named, at
 * most LISTED_PROBLEMS_LIMIT, each cut short and its control characters
 * escaped, so no value (an ESC sequence) reaches stderr as it was.
 */
export function boundedProblems(variable: string, problems: readonly string[]): string[] {
  const listed = problems
    .slice(0, LISTED_PROBLEMS_LIMIT)
    .map((problem) => `${variable}: ${cutShort(withoutControlCharacters(problem), PROBLEM_CHARS)}`);
  const more = problems.length - listed.length;
  return more > 0 ? [...listed, `${variable}: … and ${more} more problems`] : listed;
}

/** The message of a thrown value, whatever was thrown, as a log line or an answer repeats it. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

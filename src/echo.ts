/**
 * How many characters of one value from a request a message or log line
 * repeats: a DNS subdomain (253) or a service-account username fits whole.
 */
export const ECHO_LIMIT = 256;

/**
 * `value` as a denial, a warning, an audit annotation or a log line repeats
 * it: whole up to `limit` characters, else its start and a marker saying how
 * long it was, so no answer or log line grows with what a request sends.
 */
export function echo(value: string, limit = ECHO_LIMIT): string {
  if (value.length <= limit) return value;
  // Never split a surrogate pair: the half left would not be valid UTF-16.
  const end = isHighSurrogate(value.charCodeAt(limit - 1)) ? limit - 1 : limit;
  return `${value.slice(0, end)}…(cut from ${value.length} characters)`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

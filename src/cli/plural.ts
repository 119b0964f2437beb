/** `1 error`, `2 errors`: an amount with its noun, in the plural unless it is one. */
export function count(amount: number, noun: string): string {
  return `${amount} ${amount === 1 ? noun : pluralOf(noun)}`;
}

/** An English noun's plural, as the kinds and words counted here take it: Sandboxes, Pods. */
export function pluralOf(noun: string): string {
  return /(?:s|x|z|ch|sh)$/.test(noun) ? `${noun}es` : `${noun}s`;
}

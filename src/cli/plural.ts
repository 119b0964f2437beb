export function count(amount: number, noun: string): string {
  return `${amount} ${amount === 1 ? noun : pluralOf(noun)}`;
}

/** Enough English for the kinds and words counted here: Sandboxes, Pods. */
export function pluralOf(noun: string): string {
  return /(?:s|x|z|ch|sh)$/.test(noun) ? `${noun}es` : `${noun}s`;
}

/**
 * Objects and arrays one JSON text may decode: each costs a hundred-odd bytes
 * of heap however few bytes spell it (`{},`); the largest real review holds about this many.
 */
export const MAX_DECODED_CONTAINERS = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/** Counts the objects and arrays of a JSON text as its chunks arrive, so it is refused before decoding. */
export class ContainerCounter {
  #containers = 0;
  #inString = false;
  #escaped = false;

  /** The total so far, with `chunk`, the next bytes of the text. */
  add(chunk: Uint8Array, limit = Number.POSITIVE_INFINITY): number {
    let containers = this.#containers;
    let inString = this.#inString;
    let escaped = this.#escaped;
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index];
      if (escaped) escaped = false;
      else if (inString) {
        if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (++containers > limit) break;
      }
    }
    this.#containers = containers;
    this.#inString = inString;
    this.#escaped = escaped;
    return containers;
  }
}

/** Objects and arrays in a whole JSON text, up to MAX_DECODED_CONTAINERS + 1. */
export function countContainers(json: Uint8Array): number {
  return new ContainerCounter().add(json, MAX_DECODED_CONTAINERS);
}

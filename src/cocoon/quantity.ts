// Quantities (`1Gi`, `500m`, `1e3`) as exact rationals, so two spellings of one amount are equal.

const QUANTITY =
  /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const BINARY_SUFFIXES = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

// Kubernetes itself caps quantities far below this; the bound keeps a hostile
// `1e999999999` from costing a huge BigInt power.
const MAX_DECIMAL_EXPONENT = 1000;

interface QuantityValue {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

export function parseQuantity(text: string): QuantityValue | undefined {
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign = "", number = "", suffix = ""] = match;
  const [whole = "", fraction = ""] = number.split(".");
  let numerator = BigInt(`${sign}${whole}${fraction}`);
  let denominator = 10n ** BigInt(fraction.length);

  const binaryPower = BINARY_SUFFIXES.indexOf(suffix) + 1;
  const exponent =
    DECIMAL_EXPONENTS[suffix] ?? (/^[eE]/.test(suffix) ? Number(suffix.slice(1)) : 0);
  if (binaryPower > 0) numerator *= 1024n ** BigInt(binaryPower);
  else if (Math.abs(exponent) > MAX_DECIMAL_EXPONENT) return undefined;
  else if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
  else denominator *= 10n ** BigInt(-exponent);
  return { numerator, denominator };
}

export function quantitiesEqual(left: string, right: string): boolean {
  const a = parseQuantity(left);
  const b = parseQuantity(right);
  return (
    a !== undefined &&
    b !== undefined &&
    a.numerator * b.denominator === b.numerator * a.denominator
  );
}

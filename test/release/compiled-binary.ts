/*
 * Reads what a `bun build --compile --sourcemap` executable carries, from its
 * bytes alone, to check its SBOM against: the source files of its bundle and
 * the ELF sections of the runtime it was built on.
 */

/**
 * The file names of the source maps Bun embeds for stack traces, one per
 * chunk of the bundle (the build splits it), in the layout of the pinned Bun
 * (a header of file count and mapping length, one offset/length pair per
 * name and per compressed content, the mappings, then the names back to
 * back; offsets from the header). Found by that shape: the first name starts
 * right after the mappings and every name right after the one before, at
 * any byte offset (a split bundle's tables are not 4-byte aligned). Only
 * tables of more than one name count (a shorter one is too easily matched by
 * chance); throws when there is none.
 */
export function embeddedSourceTables(bytes: Uint8Array): string[][] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const tables: string[][] = [];
  for (let header = 0; header + 16 <= bytes.length; header += 1) {
    const count = view.getUint32(header, true);
    if (count < 2 || count > 100_000) continue;
    const first = 8 + 16 * count + view.getUint32(header + 4, true);
    if (view.getUint32(header + 8, true) !== first || header + first > bytes.length) continue;
    const names = namesAt(view, decoder, header, count, first);
    if (names) tables.push(names);
  }
  if (tables.length === 0) {
    throw new Error(
      "found no embedded source map: was the binary built with --sourcemap by the pinned Bun?",
    );
  }
  return tables;
}

function namesAt(
  view: DataView,
  decoder: TextDecoder,
  header: number,
  count: number,
  first: number,
): string[] | undefined {
  const names: string[] = [];
  let next = first;
  for (let index = 0; index < count; index++) {
    const offset = view.getUint32(header + 8 + 8 * index, true);
    const length = view.getUint32(header + 12 + 8 * index, true);
    if (offset !== next || header + offset + length > view.byteLength) return undefined;
    next += length;
    const start = view.byteOffset + header + offset;
    try {
      names.push(decoder.decode(new Uint8Array(view.buffer, start, length)));
    } catch {
      return undefined;
    }
  }
  return names;
}

/** Each named ELF64 (little-endian) section's bytes. */
export function elfSections(bytes: Uint8Array): Map<string, Uint8Array> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, false) !== 0x7f454c46 || bytes[4] !== 2 || bytes[5] !== 1) {
    throw new Error("not a little-endian ELF64 file");
  }
  const tableOffset = Number(view.getBigUint64(0x28, true));
  const entrySize = view.getUint16(0x3a, true);
  const count = view.getUint16(0x3c, true);
  const namesIndex = view.getUint16(0x3e, true);
  const entry = (index: number) => {
    const at = tableOffset + index * entrySize;
    return {
      name: view.getUint32(at, true),
      type: view.getUint32(at + 4, true),
      offset: Number(view.getBigUint64(at + 0x18, true)),
      size: Number(view.getBigUint64(at + 0x20, true)),
    };
  };
  const names = entry(namesIndex);
  const sections = new Map<string, Uint8Array>();
  const SHT_NOBITS = 8;
  for (let index = 1; index < count; index++) {
    const section = entry(index);
    const nameStart = names.offset + section.name;
    const name = new TextDecoder().decode(bytes.subarray(nameStart, bytes.indexOf(0, nameStart)));
    const data =
      section.type === SHT_NOBITS
        ? new Uint8Array()
        : bytes.subarray(section.offset, section.offset + section.size);
    sections.set(name, data);
  }
  return sections;
}

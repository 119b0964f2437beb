import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPILE_FLAGS } from "../../bench/lib/compile";

test("the bench compiles its servers with the flags `make build` compiles the webhook with", () => {
  const makefile = readFileSync(join(import.meta.dir, "../../Makefile"), "utf8");
  const compile = /^COMPILE := (.*)$/m.exec(makefile)?.[1] ?? "";
  const makeFlags = compile
    .split(/\s+/)
    .filter((word) => /^--(?!sourcemap)[a-z]+(=\S+)?$/.test(word));
  expect(COMPILE_FLAGS.toSorted() as string[]).toEqual(makeFlags.sort());
});

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/*
 * The source's layers, top to bottom: a module imports only from its own
 * layer or the ones below it, and no chain of imports leads back to where it
 * started. A layer is a directory of src/ or one root file.
 *
 *   main.ts        picks a command
 *   cli            validate and audit
 *   server         the process: listeners, TLS rotation, shutdown, `serve`
 *   http           the request chain (review-chain.ts) and its parts
 *   config.ts      the environment, read once
 *   endpoints      one module per endpoint, and the table of them
 *   apiserver      the Kubernetes API client; beside endpoints, never imported by them
 *   contract       what endpoints, chain and CLI share: the request, Verdict,
 *                  Violation, the reads port, an endpoint module's shape
 *   cocoon, kube, json, observability, and the root helpers below them
 */
const LAYERS: readonly (readonly string[])[] = [
  ["main.ts"],
  ["cli"],
  ["server"],
  ["http"],
  ["config.ts"],
  ["endpoints"],
  ["apiserver"],
  ["contract"],
  ["cocoon"],
  ["kube"],
  ["json"],
  ["observability"],
  ["bounded-text.ts", "clock.ts", "safe-file.ts", "version.ts"],
];

/** Packages that belong to one concern, and the layers allowed to import them. */
const PACKAGE_HOMES: Readonly<Record<string, readonly string[]>> = {
  hono: ["server", "http"],
  "@hono/zod-validator": ["http"],
  "prom-client": ["observability"],
  pino: ["observability"],
  "@kubernetes/client-node": ["apiserver"],
};

const SRC = resolve(import.meta.dir, "../../src");

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(SRC, join(entry.parentPath, entry.name)));
}

/** Relative imports of a file into src/, type-only ones included, as paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const specifiers = [
    ...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)"/gms),
    ...text.matchAll(/\b(?:import|require)\(\s*"(\.[^"]+)"\s*\)/g),
  ].map(([, specifier]) => specifier ?? "");
  const targets = specifiers
    .map((specifier) => relative(SRC, resolve(SRC, dirname(file), specifier)))
    .filter((target) => !target.startsWith(".."));
  return [...new Set(targets)].map((target) => {
    const candidates = [`${target}.ts`, join(target, "index.ts"), target];
    return candidates.find((candidate) => files.includes(candidate)) ?? `${target} (missing)`;
  });
}

function layerOf(file: string): number {
  const top = file.split("/")[0] ?? file;
  const index = LAYERS.findIndex((layer) => layer.includes(top));
  if (index === -1) throw new Error(`${file} is in no layer: add ${top} to LAYERS`);
  return index;
}

/** The packages a file imports, by their name without a subpath (`hono/body-limit` is `hono`). */
function packagesOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const specifiers = [
    ...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+"([^".][^"]*)"/gms),
    ...text.matchAll(/\b(?:import|require)\(\s*"([^".][^"]*)"\s*\)/g),
  ].map(([, specifier]) => specifier ?? "");
  return specifiers.map((specifier) => {
    const [first = "", second = ""] = specifier.split("/");
    return first.startsWith("@") ? `${first}/${second}` : first;
  });
}

const files = sourceFiles();
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe("source layers", () => {
  test("every import resolves to a source file", () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => target.endsWith("(missing)"))
        .map((target) => `${file} → ${target}`),
    );
    expect(missing).toEqual([]);
  });

  test("no import points up the layers", () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => layerOf(target) < layerOf(file))
        .map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  test("HTTP, metrics, logging and the Kubernetes client library stay in their layers", () => {
    const strays = files.flatMap((file) =>
      packagesOf(file)
        .filter((name) => {
          const homes = PACKAGE_HOMES[name];
          return homes !== undefined && !homes.includes(file.split("/")[0] ?? file);
        })
        .map((name) => `${file} → ${name}`),
    );
    expect(strays).toEqual([]);
  });

  test("a decision reads the apiserver only through the contract's port", () => {
    const direct = [...graph].flatMap(([file, imports]) =>
      file.startsWith("endpoints/")
        ? imports
            .filter((target) => target.startsWith("apiserver/"))
            .map((target) => `${file} → ${target}`)
        : [],
    );
    expect(direct).toEqual([]);
  });

  test("no import cycle", () => {
    const cycles: string[] = [];
    const state = new Map<string, "visiting" | "done">();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "visiting") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" → "));
        return;
      }
      state.set(file, "visiting");
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, "done");
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});

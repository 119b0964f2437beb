import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";

/*
 * What `serve` loads before it answers a review: the modules its entry
 * imports, followed through the bundler's own graph (a dynamic `import()`,
 * and a `require()` the split bundle turns into a chunk of its own, load only
 * when they run, so they are not followed). Every module loaded at start is
 * heap and resident memory for the life of the process.
 */

const REPO = resolve(import.meta.dir, "../..");

interface MetaInput {
  readonly imports: readonly { readonly path: string; readonly kind: string }[];
}

/**
 * The modules `src/server/serve-command.ts` loads at start, and every module its bundle holds, by
 * their paths relative to the repository.
 */
async function modulesOfServe(): Promise<{ bundled: string[]; loaded: Map<string, MetaInput> }> {
  const built = await Bun.build({
    entrypoints: [resolve(REPO, "src/server/serve-command.ts")],
    target: "bun",
    splitting: true,
    metafile: true,
    root: REPO,
  });
  if (!built.success || !built.metafile) throw new Error("serve-imports: the bundle failed");
  const inputs = built.metafile.inputs as Record<string, MetaInput>;
  const key = (path: string) => Object.keys(inputs).find((each) => resolve(REPO, each) === path);
  const loaded = new Map<string, MetaInput>();
  const visit = (name: string | undefined) => {
    if (name === undefined || loaded.has(name)) return;
    const input = inputs[name];
    if (!input) return;
    loaded.set(name, input);
    for (const { path, kind } of input.imports) {
      if (kind !== "dynamic-import") visit(inputs[path] ? path : key(resolve(REPO, path)));
    }
  };
  visit(key(resolve(REPO, "src/server/serve-command.ts")));
  return { bundled: Object.keys(inputs), loaded };
}

const CLIENT_NODE = "node_modules/@kubernetes/client-node/";

describe("what serve loads at start", () => {
  test("client-node is in the bundle, but serve loads it only for a KUBECONFIG, from a chunk of its own", async () => {
    const { bundled, loaded } = await modulesOfServe();
    expect(loaded.size).toBeGreaterThan(100);
    expect(bundled.some((name) => name.startsWith(CLIENT_NODE))).toBe(true);
    expect([...loaded.keys()].filter((name) => name.startsWith(CLIENT_NODE))).toEqual([]);
  });
});

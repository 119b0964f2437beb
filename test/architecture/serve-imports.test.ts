import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";

/*
 * What `serve` loads before it answers a review: the modules its entry
 * imports statically, followed through the bundler's own graph (a dynamic
 * `import()`, such as the Kubernetes client's for a KUBECONFIG, is loaded
 * only when it runs, so it is not followed). Every module loaded at start is
 * heap and resident memory for the life of the process.
 */

const REPO = resolve(import.meta.dir, "../..");

interface MetaInput {
  readonly imports: readonly { readonly path: string; readonly kind: string }[];
}

/** The modules `src/server/serve-command.ts` loads at start, by their paths relative to the repository. */
async function modulesLoadedAtStart(): Promise<Map<string, MetaInput>> {
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
  return loaded;
}

const HTTP_CLIENT_AND_ZLIB = ["http", "https", "zlib"].flatMap((name) => [name, `node:${name}`]);

describe("what serve loads at start", () => {
  test("nothing loads Node's HTTP client or zlib: no library (prom-client's Pushgateway included), no module of ours", async () => {
    const loaded = await modulesLoadedAtStart();
    expect(loaded.size).toBeGreaterThan(100);
    expect([...loaded.keys()].some((name) => name.includes("node_modules/prom-client/"))).toBe(
      true,
    );
    const pushgateway = [...loaded.keys()].filter((name) => name.endsWith("pushgateway.js"));
    expect(pushgateway).toEqual([]);
    const strays = [...loaded].flatMap(([name, input]) =>
      input.imports
        .filter(({ path }) => HTTP_CLIENT_AND_ZLIB.includes(path))
        .map(({ path }) => `${name} → ${path}`),
    );
    expect(strays).toEqual([]);
  });
});

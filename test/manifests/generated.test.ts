import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { driftedFiles, generatedFiles } from "../../scripts/generated-files";
import type { Registration } from "../../src/contract/endpoint";
import { ENDPOINT_KEYS, ENDPOINTS } from "../../src/endpoints";
import { enforcementName } from "../../src/endpoints/enforcement";
import { asFolded } from "./cel-readings";
import { repoPath } from "./kustomize";

const committed = (path: string) =>
  existsSync(repoPath(path)) ? readFileSync(repoPath(path), "utf8") : undefined;

/** The committed files, with `path` as `edit` turns it. */
const editing =
  (path: string, edit: (text: string) => string) =>
  (read: string): string | undefined =>
    read === path ? edit(committed(read) ?? "") : committed(read);

describe("files generated from the endpoint table", () => {
  test("the committed files are what `make generate` writes", () => {
    expect(driftedFiles(committed), "run `make generate` and commit the result").toEqual([]);
  });

  test("a file that differs from the table is reported", () => {
    const [first = ""] = generatedFiles(committed).keys();
    expect(driftedFiles(editing(first, (text) => `${text}# edited by hand\n`))).toEqual([first]);
  });

  test("an endpoint list edited by hand in a marked span or in the Deployment is reported", () => {
    const last = enforcementName(ENDPOINT_KEYS.at(-1) ?? "podGate");
    const dropLast = (text: string) => text.replace(` or \`${last}\``, "");
    expect(driftedFiles(editing("docs/configuration.md", dropLast))).toEqual([
      "docs/configuration.md",
    ]);
    const deployment = "manifests/base/deployment.yaml";
    const dropped = editing(deployment, (text) => text.replace(`,${last}=deny`, ""));
    expect(driftedFiles(dropped)).toEqual([deployment]);
    expect(generatedFiles(dropped).get(deployment)).toBe(committed(deployment));
  });

  test("a page whose generated spans were removed, or that names an unknown span, is an error", () => {
    const unmarked = editing("docs/metrics.md", (text) =>
      text.replaceAll(/<!-- \/?generated(: [a-z-]+)? -->/g, ""),
    );
    expect(() => generatedFiles(unmarked)).toThrow("docs/metrics.md: no <!-- generated: NAME -->");
    const unknown = editing("docs/metrics.md", (text) =>
      text.replace("generated: handler-labels", "generated: handler-names"),
    );
    expect(() => generatedFiles(unknown)).toThrow("no generated span is called handler-names");
  });

  test("the folded CEL reads back as the table's expressions", () => {
    const written = new Map<string, unknown>();
    for (const [path, text] of generatedFiles(committed)) {
      if (!path.endsWith(".yaml")) continue;
      for (const document of parseAllDocuments(text)) {
        const webhooks = (document.toJS() as { webhooks?: unknown }).webhooks;
        if (!Array.isArray(webhooks)) continue;
        for (const webhook of webhooks as { name: string; matchConditions?: unknown }[]) {
          if (webhook.matchConditions) written.set(webhook.name, webhook.matchConditions);
        }
      }
    }
    for (const endpoint of ENDPOINT_KEYS) {
      const registration: Registration = ENDPOINTS[endpoint].registration;
      const conditions = registration.matchConditions?.conditions.map(({ name, expression }) => ({
        name,
        expression: asFolded(expression),
      }));
      expect(written.get(registration.name), endpoint).toEqual(conditions);
    }
  });
});

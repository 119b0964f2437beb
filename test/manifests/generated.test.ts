import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { driftedFiles, generatedFiles } from "../../scripts/generated-files";
import { ENDPOINT_KEYS, ENDPOINTS, type Registration } from "../../src/admission/endpoints";
import { repoPath } from "./kustomize";

const committed = (path: string) =>
  existsSync(repoPath(path)) ? readFileSync(repoPath(path), "utf8") : undefined;

describe("manifests generated from the endpoint table", () => {
  test("the committed files are what `make generate` writes", () => {
    expect(driftedFiles(committed), "run `make generate` and commit the result").toEqual([]);
  });

  test("a file that differs from the table is reported", () => {
    const [first = ""] = generatedFiles().keys();
    const edited = (path: string) =>
      path === first ? `${committed(path)}# edited by hand\n` : committed(path);
    expect(driftedFiles(edited)).toEqual([first]);
  });

  test("the folded CEL reads back as the table's expressions", () => {
    const written = new Map<string, unknown>();
    for (const text of generatedFiles().values()) {
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
        expression,
      }));
      expect(written.get(registration.name), endpoint).toEqual(conditions);
    }
  });
});

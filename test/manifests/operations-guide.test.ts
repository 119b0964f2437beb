import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../../package.json";
import { ENDPOINT_KEYS, resultReasons } from "../../src/endpoints";
import { headingAnchors } from "../support/markdown";
import { docsRef } from "../support/releases";
import { isRecord, render } from "./kustomize";

const REPO = join(import.meta.dir, "../..");
const GUIDE = "docs/operations.md";
// The guide of the release the alerts were installed with, not whatever main says today
// (a -dev build of main: main's, as no tag of its version exists).
const GUIDE_URL = `https://github.com/cocoonstack/cocoon-webhook/blob/${docsRef(packageJson.version)}/${GUIDE}#`;
const guide = readFileSync(join(REPO, GUIDE), "utf8");

const anchors = headingAnchors(guide);

describe("operations guide", () => {
  const alerts = render("manifests/monitoring")
    .filter((object) => object.kind === "PrometheusRule")
    .flatMap((rule) => {
      const spec = isRecord(rule.spec) ? rule.spec : {};
      const groups = Array.isArray(spec.groups) ? spec.groups : [];
      return groups.flatMap((group) =>
        isRecord(group) && Array.isArray(group.rules) ? group.rules.filter(isRecord) : [],
      );
    })
    .filter((rule) => typeof rule.alert === "string");

  test("there are alerts to check", () => {
    expect(alerts.length).toBeGreaterThan(5);
  });

  test("every alert's runbook_url points at a heading of the guide", () => {
    for (const alert of alerts) {
      const annotations = isRecord(alert.annotations) ? alert.annotations : {};
      const url = String(annotations.runbook_url ?? "");
      expect(url, String(alert.alert)).toStartWith(GUIDE_URL);
      expect(anchors.has(url.slice(GUIDE_URL.length)), `${alert.alert}: ${url}`).toBeTrue();
    }
  });

  test("every reason of the endpoint table is explained in the reasons table", () => {
    const reasons = new Set(
      ENDPOINT_KEYS.flatMap((endpoint) => resultReasons(endpoint).map(({ reason }) => reason)),
    );
    reasons.delete("");
    expect(reasons.size).toBeGreaterThan(10);
    for (const reason of reasons) {
      expect(guide, reason).toMatch(new RegExp(`^\\| \`${reason}\` \\|`, "m"));
    }
  });

  test("the installation guide lists every alert, and no other", () => {
    const installation = readFileSync(join(REPO, "docs/installation.md"), "utf8");
    const monitoring = installation.slice(installation.indexOf("**Monitoring**"));
    const listed = [...monitoring.matchAll(/^\* \[`(\w+)`\]\(operations\.md#(\w+)\)/gm)];
    expect(listed.map(([, name]) => name)).toEqual(alerts.map((alert) => String(alert.alert)));
    for (const [, name = "", anchor] of listed) expect(anchor).toBe(name.toLowerCase());
  });

  test("README links the guide", () => {
    expect(readFileSync(join(REPO, "README.md"), "utf8")).toContain("(docs/operations.md)");
  });
});

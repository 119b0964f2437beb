/*
 * actionlint checks the inputs of popular actions by tag; with every action
 * pinned to a commit it checks none. This checks each `with:` of the
 * workflows (and of the example workflow in docs/) against the inputs each
 * pinned commit's action.yml declares, from the committed table
 * .github/action-inputs.yaml (scripts/action-inputs.ts writes it; no network
 * at test time), and each pin's `# vX.Y.Z` comment against that commit's tag.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { inputsOf } from "../../scripts/action-inputs";
import {
  ACTION_INPUTS_FILE,
  type ActionInputs,
  inputProblems,
  type Pin,
  pinnedActions,
} from "../../scripts/workflow-pins";
import { repoPath } from "../manifests/kustomize";

const table: Record<string, ActionInputs> = parse(
  readFileSync(repoPath(ACTION_INPUTS_FILE), "utf8"),
);
const pins = pinnedActions(repoPath());
const CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1";

describe("pinned actions", () => {
  test("every step of the workflows and the docs' example is read, with its inputs", () => {
    expect(pins.length).toBeGreaterThan(25);
    expect(pins.map((pin) => pin.where)).toContain("docs/cli.md job cocoon-manifests");
    const login = pins.find((pin) => pin.action === "docker/login-action");
    expect(login?.given).toEqual(["registry", "username", "password"]);
  });

  test("every with: names an input of the pinned commit, and every required one is given", () => {
    expect(inputProblems(pins, table)).toEqual([]);
  });

  test("the table holds exactly the pinned commits", () => {
    expect(Object.keys(table).sort()).toEqual(
      [...new Set(pins.map((pin) => `${pin.action}@${pin.sha}`))].sort(),
    );
  });

  const checkout: Pin = {
    action: "actions/checkout",
    sha: CHECKOUT.split("@")[1] ?? "",
    version: "v7.0.1",
    given: ["persist-credentials"],
    where: "ci.yml job test",
  };

  test.each([
    ["a misspelt input", { given: ["persist-credential"] }, 'has no input "persist-credential"'],
    [
      "a comment naming another release",
      { version: "v7.0.0" },
      "is commented # v7.0.0, but that commit is v7.0.1",
    ],
    ["a commit not in the table", { sha: "0".repeat(40) }, "is not in .github/action-inputs.yaml"],
  ])("%s is reported", (_, change, message) => {
    const [problem = ""] = inputProblems([{ ...checkout, ...change }], table);
    expect(problem).toContain(message);
  });

  test("a required input left out is reported", () => {
    const sbom = pins.find((pin) => pin.action === "actions/attest-sbom");
    if (!sbom) throw new Error("no attest-sbom step");
    expect(inputProblems([{ ...sbom, given: ["subject-path"] }], table)).toEqual([
      `${sbom.where}: ${sbom.action}@${sbom.sha} needs input "sbom-path"`,
    ]);
  });
});

test("an action.yml's inputs: those required without a default are required", () => {
  const actionYaml = `name: x
inputs:
  token: {required: true, default: "\${{ github.token }}"}
  path: {required: true}
  mode: {required: false}
  flag:
runs: {using: node24, main: index.js}
`;
  expect(inputsOf(actionYaml, "v1.2.3")).toEqual({
    version: "v1.2.3",
    inputs: ["flag", "mode", "path", "token"],
    required: ["path"],
  });
});

/** The actions the workflows pin, with the inputs each step gives them. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";

export const ACTION_INPUTS_FILE = ".github/action-inputs.yaml";

/** One action's inputs as its action.yml declares them at one commit. */
export interface ActionInputs {
  readonly version: string;
  readonly inputs: readonly string[];
  readonly required: readonly string[];
}

/** A step's `uses: owner/repo[/path]@sha # vX.Y.Z` and the keys of its `with:`. */
export interface Pin {
  readonly action: string;
  readonly sha: string;
  readonly version: string;
  readonly given: readonly string[];
  /** File and job, for messages. */
  readonly where: string;
}

const workflowSchema = z.object({
  jobs: z.record(
    z.string(),
    z.object({
      steps: z
        .array(
          z.object({
            uses: z.string().optional(),
            with: z.record(z.string(), z.unknown()).optional(),
          }),
        )
        .default([]),
    }),
  ),
});

/** Every workflow in .github/workflows and every example workflow in a YAML block of docs/. */
function workflowTexts(root: string): { file: string; text: string }[] {
  const workflows = readdirSync(join(root, ".github/workflows")).map((name) => ({
    file: `.github/workflows/${name}`,
    text: readFileSync(join(root, ".github/workflows", name), "utf8"),
  }));
  const examples = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .flatMap((name) =>
      [...readFileSync(join(root, "docs", name), "utf8").matchAll(/```yaml\n([\s\S]*?)```/g)]
        .map((match) => match[1] ?? "")
        .filter((block) => /^jobs:/m.test(block))
        .map((text) => ({ file: `docs/${name}`, text })),
    );
  return [...workflows, ...examples];
}

/**
 * Every step that uses an action. The comment is read from the text, as YAML
 * parsers drop comments: each `uses:` line, in order, gives its step's version.
 */
export function pinnedActions(root: string): Pin[] {
  return workflowTexts(root).flatMap(({ file, text }) => {
    const comments = [...text.matchAll(/^\s*(?:- )?uses: (\S+)(?: # (\S+))?$/gm)].map((match) => ({
      uses: match[1] ?? "",
      version: match[2] ?? "",
    }));
    const steps = Object.entries(workflowSchema.parse(parse(text)).jobs).flatMap(
      ([job, { steps }]) =>
        steps.filter((step) => step.uses !== undefined).map((step) => ({ job, step })),
    );
    return steps.map(({ job, step }, index) => {
      const uses = step.uses ?? "";
      const at = uses.lastIndexOf("@");
      const comment = comments[index];
      if (comment?.uses !== uses)
        throw new Error(`${file}: cannot pair "uses: ${uses}" with its line`);
      return {
        action: uses.slice(0, at),
        sha: uses.slice(at + 1),
        version: comment.version,
        given: Object.keys(step.with ?? {}),
        where: `${file} job ${job}`,
      };
    });
  });
}

/** What is wrong with the pins and their inputs, one line each; empty when nothing is. */
export function inputProblems(
  pins: readonly Pin[],
  table: Readonly<Record<string, ActionInputs>>,
): string[] {
  return pins.flatMap((pin) => {
    const known = table[`${pin.action}@${pin.sha}`];
    const name = `${pin.where}: ${pin.action}@${pin.sha}`;
    if (!known)
      return [`${name} is not in ${ACTION_INPUTS_FILE}; run bun scripts/action-inputs.ts`];
    if (known.version !== pin.version) {
      return [`${name} is commented # ${pin.version}, but that commit is ${known.version}`];
    }
    return [
      ...pin.given
        .filter((input) => !known.inputs.includes(input))
        .map((input) => `${name} has no input "${input}" (it has: ${known.inputs.join(", ")})`),
      ...known.required
        .filter((input) => !pin.given.includes(input))
        .map((input) => `${name} needs input "${input}"`),
    ];
  });
}

import {
  type CheckOptions,
  type CheckSummary,
  createObjectChecker,
} from "../../src/cli/validate/check";
import { parseSource, type SourceObject } from "../../src/cli/validate/documents";
import type { InputProblem, SourceText } from "../../src/cli/validate/inputs";

/** Every object of a text, or the problem that ended it, as `validate` streams them. */
export function parseWhole(source: SourceText): {
  readonly objects: SourceObject[];
  readonly problem?: InputProblem;
} {
  const objects: SourceObject[] = [];
  const problem = parseSource(source, (object) => objects.push(object));
  return problem ? { objects, problem } : { objects };
}

/** Every object of a text checked as `validate` checks it; throws when the text does not parse. */
export function checkText(source: SourceText, options: CheckOptions): CheckSummary {
  const checker = createObjectChecker(options);
  const problem = parseSource(source, checker.check);
  if (problem) throw new Error(problem.message);
  return checker.summary();
}

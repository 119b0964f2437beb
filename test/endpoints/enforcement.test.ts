import { describe, expect, test } from "bun:test";
import { LISTED_PROBLEMS_LIMIT } from "../../src/bounded-text";
import { ConfigError, loadConfig } from "../../src/config";
import {
  DENY_EVERYWHERE,
  parseEnforcement,
  warnModeEndpoints,
} from "../../src/endpoints/enforcement";
import { configErrorOf } from "../support/config-error";

describe("ENFORCEMENT", () => {
  test("unset or empty denies everywhere", () => {
    expect(loadConfig({}).enforcement).toEqual(DENY_EVERYWHERE);
    expect(parseEnforcement(" , ")).toEqual({ enforcement: DENY_EVERYWHERE });
  });

  test("names endpoints by their path without the slash; the others deny", () => {
    const parsed = parseEnforcement(" mutate=warn, validate-cocoonset = warn ,validate=deny");
    expect(parsed).toEqual({
      enforcement: { ...DENY_EVERYWHERE, podGate: "warn", cocoonSet: "warn" },
    });
    if (!("enforcement" in parsed)) throw new Error("parsed");
    expect(warnModeEndpoints(parsed.enforcement)).toEqual(["podGate", "cocoonSet"]);
  });

  test.each([
    ["mutate", '"mutate" is not ENDPOINT=ACTION'],
    ["mutate=warn=deny", '"mutate=warn=deny" is not ENDPOINT=ACTION'],
    ["validate_cocoonset=warn", '"validate_cocoonset" is not an endpoint'],
    ["/mutate=warn", '"/mutate" is not an endpoint'],
    ["mutate=Warn", '"Warn" for mutate is not an action; use deny or warn'],
    ["mutate=audit", '"audit" for mutate is not an action'],
    ["mutate=warn,mutate=deny", "mutate is named twice"],
  ])("%p is refused: %s", (text, problem) => {
    const parsed = parseEnforcement(text);
    expect("problems" in parsed && parsed.problems.join("\n")).toContain(problem);
  });

  test("problems are listed up to a limit, then counted, each value quoted with invisible characters escaped", () => {
    const text = [
      "mutate\u200b=warn",
      ...Array.from({ length: 30 }, (_, index) => `e${index}=warn`),
    ].join(",");
    expect(() => loadConfig({ ENFORCEMENT: text })).toThrow(ConfigError);
    const { problems } = configErrorOf({ ENFORCEMENT: text });
    expect(problems).toHaveLength(LISTED_PROBLEMS_LIMIT + 1);
    expect(problems[0]).toStartWith('ENFORCEMENT: "mutate\\u200b" is not an endpoint');
    expect(problems.at(-1)).toBe(`ENFORCEMENT: … and ${31 - LISTED_PROBLEMS_LIMIT} more problems`);
  });

  test("a bad value stops start-up naming the variable and every problem", () => {
    try {
      loadConfig({ ENFORCEMENT: "mutate=later,nowhere=warn" });
      throw new Error("expected a ConfigError");
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems).toHaveLength(2);
      for (const problem of problems) expect(problem).toStartWith("ENFORCEMENT: ");
    }
  });
});

import { buildScenarios } from "../payloads";
import { median } from "./statistics";

/*
 * In-process A/B runs: apps answer one scenario's reviews through
 * `app.fetch` in one process, in alternating rounds, and CPU per review is
 * compared in pairs of adjacent rounds, so drift on the machine cancels out.
 */

export interface App {
  fetch(request: Request): Response | Promise<Response>;
}

const WARM_UP_ROUNDS = 10;

/** CPU microseconds per review of `app` over `reviews` reviews of scenario `id`, per round, alternating. */
export async function alternatingRounds<V extends string>(
  variants: Readonly<Record<V, App>>,
  options: { readonly scenario: string; readonly rounds: number; readonly reviews: number },
): Promise<Record<V, number[]>> {
  const scenario = buildScenarios().find((each) => each.id === options.scenario);
  if (!scenario) throw new Error(`in-process A/B: no ${options.scenario} scenario`);
  const url = `https://127.0.0.1${scenario.path}`;
  const headers = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(scenario.body)),
  };
  const round = async (app: App): Promise<number> => {
    const before = process.cpuUsage();
    for (let i = 0; i < options.reviews; i++) {
      const request = new Request(url, { method: "POST", body: scenario.body, headers });
      const response = await app.fetch(request);
      if (response.status !== 200) throw new Error(`in-process A/B: answered ${response.status}`);
      await response.arrayBuffer();
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / options.reviews;
  };
  const names = Object.keys(variants) as V[];
  const cpu = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
    V,
    number[]
  >;
  for (let i = 0; i < WARM_UP_ROUNDS; i++) for (const name of names) await round(variants[name]);
  for (let i = 0; i < options.rounds; i++) {
    for (const name of i % 2 === 0 ? names : [...names].reverse()) {
      cpu[name].push(await round(variants[name]));
    }
  }
  return cpu;
}

/** The median over rounds of `a`'s CPU per review ÷ `b`'s in the same round. */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((value, i) => value / (b[i] ?? Number.NaN)));
}

import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";

const CHART = join(import.meta.dir, "../../charts/cocoon-webhook");

/** The umbrella's release-independent name, and the key its values give the subchart under. */
export const UMBRELLA = { name: "platform", subchart: "cocoon-webhook" } as const;

/**
 * An umbrella chart, as Argo CD and Flux users compose charts, in a new
 * temporary folder: this checkout's chart as a dependency switched by
 * `cocoon-webhook.enabled`, and parent values with Helm's `global` (which
 * Helm hands every subchart) and `subchartValues` for the subchart.
 */
export function makeUmbrellaChart(subchartValues: Record<string, unknown> = {}): string {
  const umbrella = mkdtempSync(join(tmpdir(), "umbrella-"));
  mkdirSync(join(umbrella, "charts"));
  cpSync(CHART, join(umbrella, "charts", UMBRELLA.subchart), { recursive: true });
  writeFileSync(
    join(umbrella, "Chart.yaml"),
    stringify({
      apiVersion: "v2",
      name: UMBRELLA.name,
      version: "1.0.0",
      dependencies: [
        {
          name: UMBRELLA.subchart,
          version: ">=0.0.0-0",
          condition: `${UMBRELLA.subchart}.enabled`,
        },
      ],
    }),
  );
  writeFileSync(
    join(umbrella, "values.yaml"),
    stringify({
      global: { imageRegistry: "registry.example", clusterName: "east" },
      [UMBRELLA.subchart]: subchartValues,
    }),
  );
  return umbrella;
}

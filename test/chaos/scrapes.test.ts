import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startWebhook, type WebhookProcess } from "../e2e/harness";
import { waitUntil } from "../support/eventually";
import { CHAOS_ENABLED, percentile, plainPodReview, postWithFetch, recordFigures } from "./support";

/*
 * /metrics shares the event loop with admission: a scrape that costs
 * milliseconds, times many scrapers, delays every review. A normal review's
 * latency is measured under 0, 1, 16 and 128 concurrent scrapers, each
 * scraping back to back (far harsher than any Prometheus setup).
 */

const WINDOW_MS = Number(process.env.CHAOS_SCRAPE_WINDOW_MS ?? "8000");
const REVIEW_EVERY_MS = 10;
const SCRAPER_COUNTS = [0, 1, 16, 128] as const;

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook({
    env: { WEBHOOK_LOG_LEVEL: "info", METRICS_RENDER_INTERVAL: "1s" },
  });
});
afterAll(async () => {
  await webhook?.stop();
});

async function scrapeLoop(url: string, deadline: number, counter: { scrapes: number }) {
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      await response.text();
      counter.scrapes += 1;
    } catch {
      // counted as a missing scrape; the review latency is what is measured
    }
  }
}

describe.skipIf(!CHAOS_ENABLED)("concurrent /metrics scrapers", () => {
  test(
    "a normal review's latency under 0, 1, 16 and 128 back-to-back scrapers",
    async () => {
      const target = { url: webhook.admissionUrl, ca: webhook.ca.cert };
      const figures: Record<string, number> = {};
      for (const scrapers of SCRAPER_COUNTS) {
        const deadline = Date.now() + WINDOW_MS;
        const counter = { scrapes: 0 };
        const loops = Array.from({ length: scrapers }, () =>
          scrapeLoop(`${webhook.opsUrl}/metrics`, deadline, counter),
        );
        const latencies: number[] = [];
        let failed = 0;
        // Every scraper has scraped once: they are at steady state.
        await waitUntil(() => counter.scrapes >= scrapers, 5000);
        while (Date.now() < deadline) {
          const uid = crypto.randomUUID();
          const outcome = await postWithFetch(target, "/mutate", plainPodReview(uid), uid);
          if (outcome.ok) latencies.push(outcome.latencyMs);
          else failed += 1;
          await Bun.sleep(REVIEW_EVERY_MS); // deliberate: the review rate
        }
        await Promise.all(loops);
        figures[`${scrapers} scrapers: reviews`] = latencies.length;
        figures[`${scrapers} scrapers: failed reviews`] = failed;
        figures[`${scrapers} scrapers: review p50 ms`] = percentile(latencies, 50);
        figures[`${scrapers} scrapers: review p99 ms`] = percentile(latencies, 99);
        figures[`${scrapers} scrapers: scrapes/s`] = counter.scrapes / (WINDOW_MS / 1000);
        expect(failed).toBe(0);
      }
      recordFigures(`/metrics scrapers (${process.env.COCOON_WEBHOOK_BINARY ?? "dist"})`, figures);
    },
    SCRAPER_COUNTS.length * WINDOW_MS + 60_000,
  );
});

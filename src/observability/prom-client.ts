import type * as PromClient from "prom-client";

/*
 * The parts of prom-client the webhook uses, each from the package's own
 * module: its entry point also loads the Pushgateway client, and with it
 * `node:http`, `node:https` and zlib, which a process that never pushes has
 * no use for (1.3 MiB of resident memory after a load; 2.2–3.2 MiB once
 * nothing else loads `node:http`, docs/performance.md). These
 * are the very modules the entry point re-exports, so every class is the one
 * the package's own code and its types describe.
 */

export const Registry: typeof PromClient.Registry = require("prom-client/lib/registry");
export type Registry = PromClient.Registry;
export const Counter: typeof PromClient.Counter = require("prom-client/lib/counter");
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge: typeof PromClient.Gauge = require("prom-client/lib/gauge");
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export const Histogram: typeof PromClient.Histogram = require("prom-client/lib/histogram");
export type Histogram<T extends string = string> = PromClient.Histogram<T>;
export const collectDefaultMetrics: typeof PromClient.collectDefaultMetrics = require("prom-client/lib/defaultMetrics");
export type { CounterConfiguration, LabelValues } from "prom-client";

/**
 * The in-process A/B behind "one way to read untrusted JSON"
 * (docs/performance.md): the reads the pod gate makes of an already parsed
 * pod, done through the path readers of src/json/read.ts (the functions the
 * gate ships) and through narrow loose zod schemas of exactly the fields
 * read, on
 *
 * - the common case: the non-cocoon pod of the bench's common-case review
 *   (bench/payloads.ts);
 * - a pod with 500 000 empty tolerations before the cocoon one, the
 *   hostile review of test/e2e/hostile.test.ts;
 *
 * and the checks of a CocoonSet of 10 and of 100 000 toolboxes as the
 * policy ships them (checkCocoonSet) against the same fields first decoded
 * through a zod schema. Variants take turns in one process, reversing the
 * order every round; each figure is the median over rounds of ns per object.
 * Both sides read the same fields and reach the same answer, which is
 * checked before timing.
 *
 *   node_modules/.bin/bun bench/json-readers-ab.ts [rounds, 15]
 */

import { z } from "zod";
import { hasCocoonToleration, VM_NAME_ANNOTATION } from "../src/cocoon/markers";
import { checkCocoonSet } from "../src/endpoints/cocoonset/decide";
import { podOwnerKinds, readPodMarkers, requestedNodeName } from "../src/endpoints/pod-gate/decide";
import { isJsonObject } from "../src/json/read";
import { median } from "./lib/statistics";
import { cocoonSet, pod } from "./payloads";

/** What the gate learns of a pod CREATE: gated or not, the node it names, its owners' kinds. */
type PodReading = readonly [markers: string, nodeName: unknown, owners: number];

function viaPathReaders(object: unknown): PodReading {
  const markers = readPodMarkers(object);
  return [
    markers,
    requestedNodeName(object),
    markers === "gated" ? podOwnerKinds(object).length : 0,
  ];
}

/*
 * The same fields through zod: each field caught on its own, so a malformed
 * sibling cannot hide a marker, as the gate requires. Two ways to take the
 * tolerations: entries left unknown and judged by the same loop as the gate,
 * or each entry a loose object whose key is read.
 */
const UNREADABLE = "unreadable" as const;
/** A caught field reads as UNREADABLE, which zod's output type cannot spell. */
const unreadable = () => UNREADABLE as never;
const list = z.array(z.unknown().optional()).nullish().catch(unreadable);
const podFields = (tolerations: z.ZodType) =>
  z
    .looseObject({
      metadata: z
        .looseObject({
          annotations: z.looseObject({}).nullish().catch(unreadable),
          ownerReferences: list,
        })
        .nullish()
        .catch(unreadable),
      spec: z
        .looseObject({ tolerations, nodeName: z.unknown().optional() })
        .nullish()
        .catch(unreadable),
    })
    .catch({});
/** zod at its cheapest, for scale: no field caught on its own, so one mistyped field fails the whole read. */
const podUncaught = z.looseObject({
  metadata: z
    .looseObject({
      annotations: z.looseObject({}).nullish(),
      ownerReferences: z.array(z.unknown()).nullish(),
    })
    .nullish(),
  spec: z
    .looseObject({ tolerations: z.array(z.unknown()).nullish(), nodeName: z.unknown().optional() })
    .nullish(),
});
const podEntriesUnknown = podFields(list);
const podEntriesTyped = podFields(
  z
    .array(z.looseObject({ key: z.unknown().optional() }).catch({ key: undefined }))
    .nullish()
    .catch(unreadable),
);

function viaZod(schema: z.ZodType) {
  return (object: unknown): PodReading => {
    const { metadata, spec } = schema.parse(object) as {
      metadata?: { annotations?: unknown; ownerReferences?: unknown } | null | typeof UNREADABLE;
      spec?: { tolerations?: unknown; nodeName?: unknown } | null | typeof UNREADABLE;
    };
    const meta = metadata === UNREADABLE ? UNREADABLE : (metadata ?? undefined);
    const podSpec = spec === UNREADABLE ? UNREADABLE : (spec ?? undefined);
    const tolerations = podSpec === UNREADABLE ? UNREADABLE : podSpec?.tolerations;
    const annotations = meta === UNREADABLE ? UNREADABLE : meta?.annotations;
    const tolerated = Array.isArray(tolerations) && hasCocoonToleration(tolerations);
    const annotated = isJsonObject(annotations) && Object.hasOwn(annotations, VM_NAME_ANNOTATION);
    const markers =
      tolerated || annotated
        ? "gated"
        : tolerations === UNREADABLE && annotations === UNREADABLE
          ? "undecodable"
          : "not_gated";
    const rawNode = podSpec === UNREADABLE ? undefined : podSpec?.nodeName;
    const nodeName = rawNode === null || rawNode === "" ? undefined : rawNode;
    const references = meta === UNREADABLE ? undefined : meta?.ownerReferences;
    let owners = 0;
    if (markers === "gated" && Array.isArray(references)) {
      for (const reference of references) {
        if (
          isJsonObject(reference) &&
          typeof reference.apiVersion === "string" &&
          typeof reference.kind === "string"
        ) {
          owners++;
        }
      }
    }
    return [markers, nodeName, owners];
  };
}

const common = pod({ name: "web-7d9c8b6f5d-x2x9q", gated: false });
const gated = pod({ name: "agents-0", gated: true });
const gatedSpec = gated.spec as { tolerations: unknown[] };
const hostile = {
  ...gated,
  spec: {
    ...gatedSpec,
    tolerations: [...Array.from({ length: 500_000 }, () => ({})), ...gatedSpec.tolerations],
  },
};

/*
 * CocoonSet: the shipped checks, against the same fields decoded first by a
 * loose zod schema (each field typed, mistyped ones caught per field and
 * reported as the policy does) and then checked by the shipped checks.
 */
const vmFields = {
  image: z.string().nullish(),
  os: z.unknown().optional(),
  backend: z.unknown().optional(),
  connType: z.unknown().optional(),
};
const cocoonSetFields = z.looseObject({
  metadata: z
    .looseObject({
      name: z.string().nullish(),
      generateName: z.string().nullish(),
      namespace: z.string().nullish(),
    })
    .nullish(),
  spec: z
    .looseObject({
      agent: z
        .looseObject({ ...vmFields, replicas: z.int().nullish(), mode: z.unknown().optional() })
        .nullish(),
      toolboxes: z
        .array(
          z.looseObject({
            ...vmFields,
            name: z.string().nullish(),
            mode: z.unknown().optional(),
            staticIP: z.string().nullish(),
            staticVMID: z.string().nullish(),
          }),
        )
        .nullish(),
      snapshotPolicy: z.unknown().optional(),
      hibernatePolicy: z.unknown().optional(),
    })
    .nullish(),
});

let reported = 0;
const countViolation = () => {
  reported++;
};

function shippedCocoonSet(set: Record<string, unknown>): number {
  reported = 0;
  checkCocoonSet(set, "default", countViolation);
  return reported;
}

function zodThenChecks(set: Record<string, unknown>): number {
  reported = 0;
  const decoded = cocoonSetFields.safeParse(set);
  if (!decoded.success) return -1;
  checkCocoonSet(decoded.data as Record<string, unknown>, "default", countViolation);
  return reported;
}

interface Case {
  readonly title: string;
  readonly perRound: number;
  readonly variants: Readonly<Record<string, () => unknown>>;
}

const podCase = (title: string, object: unknown, perRound: number): Case => ({
  title,
  perRound,
  variants: {
    "path readers": () => viaPathReaders(object),
    "zod, entries unknown": () => viaZod(podEntriesUnknown)(object),
    "zod, each toleration an object": () => viaZod(podEntriesTyped)(object),
    "zod, no field caught (for scale)": () => viaZod(podUncaught)(object),
  },
});

const setCase = (toolboxes: number, perRound: number): Case => {
  const set = cocoonSet(toolboxes);
  return {
    title: `CocoonSet, ${toolboxes.toLocaleString("en")} toolboxes`,
    perRound,
    variants: {
      "shipped checks": () => shippedCocoonSet(set),
      "zod, then the checks": () => zodThenChecks(set),
    },
  };
};

const cases: Case[] = [
  podCase("common case: non-cocoon pod", common, 20_000),
  podCase("pod with 500 000 tolerations", hostile, 2),
  setCase(10, 5_000),
  setCase(100_000, 1),
];

const rounds = Number(process.argv[2] ?? 15);
console.log(`${rounds} rounds per case, variants alternating; ns per object, median of rounds\n`);
console.log("| case | variant | ns per object (median) | ÷ first variant |");
console.log("|---|---|---:|---:|");
for (const { title, perRound, variants } of cases) {
  const names = Object.keys(variants);
  const answers = names.map((name) => JSON.stringify(variants[name]?.()));
  if (new Set(answers).size !== 1) {
    throw new Error(`${title}: the variants disagree: ${answers.join(" / ")}`);
  }
  const timings = Object.fromEntries(names.map((name) => [name, [] as number[]]));
  for (let round = -2; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const read = variants[name] as () => unknown;
      const started = Bun.nanoseconds();
      for (let i = 0; i < perRound; i++) read();
      const ns = (Bun.nanoseconds() - started) / perRound;
      if (round >= 0) timings[name]?.push(ns);
    }
  }
  const first = median(timings[names[0] as string] ?? []);
  for (const name of names) {
    const ns = median(timings[name] ?? []);
    console.log(`| ${title} | ${name} | ${formatNs(ns)} | ${(ns / first).toFixed(2)}× |`);
  }
}

function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(1)} ms`;
  if (ns >= 1e4) return `${(ns / 1e3).toFixed(1)} µs`;
  return `${Math.round(ns)} ns`;
}

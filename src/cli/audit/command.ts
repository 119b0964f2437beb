import { writeFileSync } from "node:fs";
import { z } from "zod";
import { createKubeApi, type KubeApiHandle } from "../../apiserver/client";
import { errorText, quotedSetting } from "../../bounded-text";
import { ConfigError, loadConfig, parseDurationMs } from "../../config";
import type { PodCreators } from "../../endpoints/pod-gate/creators";
import { isDnsLabel } from "../../kube/name-grammar";
import { createLineLogger } from "../../observability/logger";
import { lastValue, present, readOptions } from "../args";
import { count } from "../plural";
import {
  answerWithoutRunning,
  type CliIo,
  EXIT_CLEAN,
  EXIT_FINDINGS,
  EXIT_UNUSABLE,
  isRunnable,
  type ParsedOptions,
  processCliIo,
} from "../subcommand";
import { AUDIT_FORMATS, errorCount, renderAudit } from "./output";
import { type AuditReport, scanCluster } from "./scan";

export const AUDIT_USAGE = `usage: cocoon-webhook audit [FLAGS]

Reads the live cluster and reports every object that breaks a rule the webhook enforces, as the
webhook would judge it on CREATE: CocoonSets, CocoonHibernations (one per pod), pods that enter the
cocoon gate without an owner of a kind POD_CREATORS trusts, unmarked pods on VM nodes, and (as
notices) cocoon-tolerated Deployments and StatefulSets.

  -n, --namespace NS       audit one namespace (nodes are always read: they tell VM nodes apart)
  -A, --all-namespaces     audit every namespace (the default)
  -o, --output FORMAT      text (default), json, junit, sarif, github or policyreport
                           (a List of wgpolicyk8s.io/v1alpha2 PolicyReports, one per namespace)
      --strict             warnings count as errors (exit 1)
      --exit-zero          exit 0 with findings too (for a job that publishes them); 2 still
                           means the audit could not run or a kind could not be checked
      --output-file FILE   write the report to FILE instead of stdout (a job's shared volume)
      --timeout DURATION   the whole audit's time limit, such as 90s or 10m (default 30m);
                           a run past it reports the kinds it could not check and exits 2
      --kubeconfig PATH    kubeconfig to use (default $KUBECONFIG, else the in-cluster account)
      --context NAME       a context of that kubeconfig instead of its current-context
  -v, --version            print the version and exit
  -h, --help               show this help

The environment configures it as it does the webhook: POD_CREATORS, APISERVER_TIMEOUT (per LIST
page), APISERVER_LIST_PAGE_SIZE. It needs list on cocoonsets, cocoonhibernations, pods, nodes,
deployments and statefulsets.

examples:
  cocoon-webhook audit
  cocoon-webhook audit -n team-a -o json | jq '.[] | select(.severity == "error")'
  cocoon-webhook audit -o policyreport --exit-zero | kubectl apply -f -
  cocoon-webhook audit --context prod -o sarif > audit.sarif

exit status: 0 no error (warnings and notices allowed), 1 findings at error level,
             2 usage error, no cluster, or a kind that could not be listed and checked
`;

/** Room for a large cluster, whose every page may take up to APISERVER_TIMEOUT. */
const DEFAULT_TIMEOUT = "30m";

const PROGRESS_INTERVAL_MS = 250;

const optionsSchema = z
  .object({
    namespace: lastValue.pipe(
      z
        .string()
        .refine(isDnsLabel, "--namespace must be a namespace name (an RFC 1123 label)")
        .optional(),
    ),
    "all-namespaces": present,
    output: lastValue.pipe(
      z
        .enum(AUDIT_FORMATS, { error: `--output must be one of ${AUDIT_FORMATS.join(", ")}` })
        .default("text"),
    ),
    strict: present,
    "exit-zero": present,
    "output-file": lastValue.pipe(z.string().min(1, "--output-file must not be empty").optional()),
    timeout: lastValue.pipe(
      z
        .string()
        .default(DEFAULT_TIMEOUT)
        .transform((text, ctx) => {
          const ms = parseDurationMs(text);
          if (ms !== undefined && ms > 0) return ms;
          ctx.addIssue({
            code: "custom",
            message: `--timeout must be a positive duration such as 90s or 10m, got ${quotedSetting(text)}`,
          });
          return z.NEVER;
        }),
    ),
    kubeconfig: lastValue.pipe(z.string().min(1, "--kubeconfig must not be empty").optional()),
    context: lastValue.pipe(z.string().min(1, "--context must not be empty").optional()),
    version: present,
    help: present,
  })
  .refine((options) => !(options.namespace && options["all-namespaces"]), {
    message: "--namespace and --all-namespaces exclude each other",
  });

const SHORT_FLAGS = {
  namespace: "n",
  "all-namespaces": "A",
  output: "o",
  version: "v",
  help: "h",
};

type AuditOptions = z.infer<typeof optionsSchema>;

export interface AuditIo extends CliIo {
  readonly stderrIsTerminal: () => boolean;
  readonly env: Record<string, string | undefined>;
}

const processIo: AuditIo = {
  ...processCliIo,
  stderrIsTerminal: () => process.stderr.isTTY === true,
  env: process.env,
};

export async function runAudit(args: readonly string[], io = processIo): Promise<number> {
  const options = parseOptions(args);
  if (!isRunnable(options)) return answerWithoutRunning("audit", AUDIT_USAGE, options, io);
  const outputFile = options["output-file"];
  const sharedStream = outputFile === undefined && io.stderrSharesStdout();
  const connected = connect(options, io, sharedStream);
  if ("error" in connected) {
    await io.stderr(`cocoon-webhook audit: ${connected.error}\n`);
    return EXIT_UNUSABLE;
  }
  const progress = io.stderrIsTerminal() ? progressLine(io) : undefined;
  const report = await scanCluster({
    lister: connected.kube.lister,
    podCreators: connected.podCreators,
    timeLimitMs: options.timeout,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(progress ? { progress: progress.draw } : {}),
  });
  progress?.clear();
  const output = renderAudit(options.output, report, { sharedStream });
  if (outputFile === undefined) await io.stdout(output.stdout);
  else {
    try {
      writeFileSync(outputFile, output.stdout);
    } catch (error) {
      await io.stderr(`cocoon-webhook audit: cannot write --output-file: ${errorText(error)}\n`);
      return EXIT_UNUSABLE;
    }
  }
  await io.stderr(output.stderr);
  if (report.problems.length > 0) return EXIT_UNUSABLE;
  if (options["exit-zero"]) return EXIT_CLEAN;
  return errorCount(report.findings, options.strict) > 0 ? EXIT_FINDINGS : EXIT_CLEAN;
}

function parseOptions(args: readonly string[]): ParsedOptions<AuditOptions> {
  const read = readOptions(args, optionsSchema, SHORT_FLAGS, ([extra]) =>
    extra === undefined ? undefined : `unexpected argument "${extra}"; audit takes flags only`,
  );
  return "error" in read ? read : read.options;
}

function connect(
  options: AuditOptions,
  io: AuditIo,
  sharedStream: boolean,
): { kube: KubeApiHandle; podCreators: PodCreators } | { error: string } {
  try {
    const config = loadConfig(io.env);
    const warnings: string[] = [];
    const kubeconfigPath = options.kubeconfig ?? config.kubeconfigPath;
    const kube = createKubeApi({
      timeoutMs: config.apiserverTimeoutMs,
      listPageSize: config.apiserverListPageSize,
      ...(kubeconfigPath === undefined ? {} : { kubeconfigPath }),
      ...(options.context === undefined ? {} : { context: options.context }),
      log: createLineLogger("warn", ({ msg, fields }) => {
        const shown = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : "";
        warnings.push(`cocoon-webhook audit: ${msg}${shown}\n`);
      }),
    });
    // Said only once a cluster is configured: without one the error below says it all.
    if (kube.source !== "none" && !sharedStream) for (const line of warnings) void io.stderr(line);
    if (kube.source === "none") {
      return {
        error:
          "no cluster to audit: give --kubeconfig, set KUBECONFIG, or run in a pod with a service account",
      };
    }
    return { kube, podCreators: config.podCreators };
  } catch (error) {
    if (error instanceof ConfigError) return { error: error.message };
    return { error: errorText(error) };
  }
}

function progressLine(io: AuditIo): { draw: (report: AuditReport) => void; clear: () => void } {
  let drawnAt = 0;
  return {
    draw(report) {
      const now = performance.now();
      if (now - drawnAt < PROGRESS_INTERVAL_MS) return;
      drawnAt = now;
      const checked = Object.entries(report.checked)
        .filter(([, checkedCount]) => checkedCount > 0)
        .map(([kind, checkedCount]) => count(checkedCount, kind))
        .join(", ");
      void io.stderr(
        `\r\u001b[Kaudit: ${checked} checked; ${count(report.findings.length, "finding")}`,
      );
    },
    clear: () => void io.stderr("\r\u001b[K"),
  };
}

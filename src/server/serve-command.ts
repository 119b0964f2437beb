import { constants } from "node:os";
import { createKubeApi } from "../apiserver/client";
import { errorText } from "../bounded-text";
import { ConfigError, ENVIRONMENT_VARIABLES, loadConfig } from "../config";
import { bindDecisions, WEBHOOK_TIMEOUT_SECONDS } from "../endpoints";
import { createLogger } from "../observability/logger";
import { startServer } from "./start";

const EXIT_SIGNAL_BASE = 128;

/** The longest timeoutSeconds of the webhook registrations. */
const WEBHOOK_TIMEOUT_MS = WEBHOOK_TIMEOUT_SECONDS * 1000;

const SERVE_USAGE = `usage: cocoon-webhook serve

Runs the admission webhook: the HTTPS admission listener and the plain-HTTP
listener for /metrics, /healthz and /readyz, until SIGTERM or SIGINT. It takes
no flags: it is configured by environment variables (docs/configuration.md):
${wrapped(ENVIRONMENT_VARIABLES, "  ", 80)}

  -h, --help   show this help

exit status: 0 stopped by SIGTERM or SIGINT after draining, 1 could not start,
             2 invalid arguments or configuration, 128 + N a second signal N
`;

function wrapped(words: readonly string[], indent: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const [index, word] of words.entries()) {
    const item = index < words.length - 1 ? `${word},` : word;
    if (line !== "" && indent.length + line.length + 1 + item.length > width) {
      lines.push(indent + line);
      line = item;
    } else line = line === "" ? item : `${line} ${item}`;
  }
  if (line !== "") lines.push(indent + line);
  return lines.join("\n");
}

export async function runServe(args: readonly string[]): Promise<number> {
  if (args.length > 0) {
    const help = args.length === 1 && (args[0] === "--help" || args[0] === "-h");
    if (help) process.stdout.write(SERVE_USAGE);
    else process.stderr.write(`cocoon-webhook: serve takes no arguments\n${SERVE_USAGE}`);
    return help ? 0 : 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`cocoon-webhook: ${error.message}`);
    return 2;
  }
  const log = createLogger(config.logLevel);
  if (config.apiserverTimeoutMs >= WEBHOOK_TIMEOUT_MS) {
    log.warn(
      { apiserverTimeoutMs: config.apiserverTimeoutMs, webhookTimeoutMs: WEBHOOK_TIMEOUT_MS },
      "APISERVER_TIMEOUT is not below the webhook's timeoutSeconds: a slow apiserver makes the apiserver give up on this webhook before it can fail closed with a clear message; lower it",
    );
  }
  let shutdown: () => Promise<boolean>;
  try {
    const kube = createKubeApi({
      timeoutMs: config.apiserverTimeoutMs,
      listPageSize: config.apiserverListPageSize,
      kubeconfigPath: config.kubeconfigPath,
      log,
    });
    shutdown = startServer(
      config,
      bindDecisions({
        podCreators: config.podCreators,
        runtimeIdentities: config.runtimeIdentities,
        kube: kube.api,
      }),
      log,
    );
  } catch (error) {
    // A missing certificate, an unusable KUBECONFIG, a port in use: say which and stop.
    const message = errorText(error);
    log.fatal({ err: error }, `cannot start: ${message}`);
    console.error(`cocoon-webhook: cannot start: ${message}`);
    return 1;
  }

  return new Promise((resolve) => {
    let stopping = false;
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.on(signal, () => {
        if (stopping) {
          log.warn({ signal }, "second signal: exiting now");
          process.exit(EXIT_SIGNAL_BASE + constants.signals[signal]);
        }
        stopping = true;
        log.info({ signal }, "shutdown requested");
        shutdown().then((finished) => {
          log.info({ finished }, "shutdown complete");
          resolve(0);
        });
      });
    }
  });
}

import { ConfigError, loadConfig } from "./config";
import { createKubeApi } from "./kube/api";
import { createLogger } from "./observability/logger";
import { buildRules } from "./rules";
import { type RunningServer, startServer } from "./server/serve";
import { VERSION_INFO } from "./version";

const USAGE = `usage: cocoon-webhook [serve | version | validate]

  serve      run the admission webhook (default); configured by environment variables
  version    print version, git revision and build time
  validate   check CocoonSet and CocoonHibernation manifests offline with the same rules
             (cocoon-webhook validate --help)
`;

const EXIT_SIGNAL_BASE = 128;
const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;

async function serve(): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`cocoon-webhook: ${error.message}`);
    return 2;
  }
  const log = createLogger(config.WEBHOOK_LOG_LEVEL);
  let server: RunningServer;
  try {
    const kube = createKubeApi({
      timeoutMs: config.APISERVER_TIMEOUT,
      kubeconfigPath: config.KUBECONFIG,
      log: (level, message, fields) => log[level](fields ?? {}, message),
    });
    server = startServer(config, buildRules(config, kube.api), log);
  } catch (error) {
    // A missing certificate, an unusable KUBECONFIG, a port in use: say which and stop.
    const message = error instanceof Error ? error.message : String(error);
    log.fatal({ err: error }, `cannot start: ${message}`);
    console.error(`cocoon-webhook: cannot start: ${message}`);
    return 1;
  }

  return new Promise((resolve) => {
    let stopping = false;
    for (const signal of Object.keys(SIGNAL_NUMBERS) as (keyof typeof SIGNAL_NUMBERS)[]) {
      process.on(signal, () => {
        if (stopping) {
          log.warn({ signal }, "second signal: exiting now");
          process.exit(EXIT_SIGNAL_BASE + SIGNAL_NUMBERS[signal]);
        }
        stopping = true;
        log.info({ signal }, "shutdown requested");
        server.shutdown().then((finished) => {
          log.info({ finished }, "shutdown complete");
          resolve(0);
        });
      });
    }
  });
}

async function main(args: readonly string[]): Promise<number> {
  const [command = "serve"] = args;
  switch (command) {
    case "serve":
      return serve();
    case "validate":
      // Loaded on demand: offline validation needs neither servers nor kube config.
      return (await import("./cli/validate")).runValidate(args.slice(1));
    case "version":
      console.log(
        `cocoon-webhook ${VERSION_INFO.version} (revision ${VERSION_INFO.revision}, built ${VERSION_INFO.buildTime})`,
      );
      return 0;
    case "-h":
    case "--help":
    case "help":
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`cocoon-webhook: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

process.exit(await main(process.argv.slice(2)));

import { VERSION_LINE } from "./version";

const USAGE = `usage: cocoon-webhook [serve | version | validate | audit]

  serve      run the admission webhook (default); configured by environment variables
  version    print version, git revision and build time (also --version, -v)
  validate   check CocoonSet and CocoonHibernation manifests offline with the same rules
             (cocoon-webhook validate --help)
  audit      report what in the live cluster breaks those rules (cocoon-webhook audit --help)
`;

async function main(args: readonly string[]): Promise<number> {
  const [command = "serve"] = args;
  switch (command) {
    // Each command loads only its own modules: `validate` starts no server and reads no kube config.
    case "serve":
      return (await import("./server/serve-command")).runServe(args.slice(1));
    case "validate":
      return (await import("./cli/validate/command")).runValidate(args.slice(1));
    case "audit":
      return (await import("./cli/audit/command")).runAudit(args.slice(1));
    case "version":
    case "--version":
    case "-v":
      console.log(VERSION_LINE);
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

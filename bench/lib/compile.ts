/**
 * Compiles a bench server the way `make build` compiles the webhook (the
 * Makefile's COMPILE, without its stamp and source map), on the same
 * embedded runtime, so that memory and start-up compare like for like: a
 * server run from source by `bun` also holds the transpiler's work and
 * none of a bundle's.
 */
export const COMPILE_FLAGS = [
  "--compile",
  "--bytecode",
  "--format=esm",
  "--splitting",
  "--minify",
] as const;

export function compileLikeTheWebhook(
  entry: string,
  outfile: string,
  options: {
    readonly cwd: string;
    readonly extraFlags?: readonly string[];
    /** Flags of COMPILE_FLAGS to leave out (an A/B of one of them). */
    readonly without?: readonly string[];
  },
): string {
  const flags = COMPILE_FLAGS.filter((flag) => !options.without?.includes(flag));
  const built = Bun.spawnSync(
    [
      process.execPath,
      "build",
      entry,
      ...flags,
      ...(options.extraFlags ?? []),
      "--outfile",
      outfile,
    ],
    { cwd: options.cwd, stdout: "pipe", stderr: "pipe" },
  );
  if (built.exitCode !== 0) throw new Error(`compiling ${entry}: ${built.stderr.toString()}`);
  return outfile;
}

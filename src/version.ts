import packageJson from "../package.json";

// Replaced by `bun build --define` in `make build`; absent when run from source.
declare const BUILD_VERSION: string | undefined;
declare const BUILD_REVISION: string | undefined;
declare const BUILD_TIME: string | undefined;

export const VERSION_INFO = {
  version: typeof BUILD_VERSION === "string" ? BUILD_VERSION : packageJson.version,
  revision: typeof BUILD_REVISION === "string" ? BUILD_REVISION : "source",
  buildTime: typeof BUILD_TIME === "string" ? BUILD_TIME : "not built",
} as const;

/** What `version`, `--version` and `validate --version` print. */
export const VERSION_LINE = `cocoon-webhook ${VERSION_INFO.version} (revision ${VERSION_INFO.revision}, built ${VERSION_INFO.buildTime})`;

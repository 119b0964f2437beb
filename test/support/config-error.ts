import { ConfigError, loadConfig } from "../../src/config";

/** The ConfigError `env` stops start-up with; throws when it loads. */
export function configErrorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

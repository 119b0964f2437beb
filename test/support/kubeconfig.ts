import { stringify as toYaml } from "yaml";

export const base64 = (text: string): string => Buffer.from(text).toString("base64");

/**
 * A one-context kubeconfig: this server, trusting `trust` (the PEM of a CA,
 * or the cluster fields that name one, such as `certificate-authority`),
 * with `user`'s credentials.
 */
export function kubeconfigYaml(
  server: string,
  trust: string | Record<string, string>,
  user: Record<string, unknown>,
): string {
  const cluster =
    typeof trust === "string" ? { "certificate-authority-data": base64(trust) } : trust;
  return toYaml({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "test", cluster: { server, ...cluster } }],
    users: [{ name: "test-user", user }],
    contexts: [
      { name: "test", context: { cluster: "test", user: "test-user", namespace: "default" } },
    ],
    "current-context": "test",
  });
}

import { stringify as toYaml } from "yaml";

export const base64 = (text: string): string => Buffer.from(text).toString("base64");

/** A one-context kubeconfig: this server, trusting `caPem`, with `user`'s credentials. */
export function kubeconfigYaml(
  server: string,
  caPem: string,
  user: Record<string, unknown>,
): string {
  return toYaml({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "test", cluster: { server, "certificate-authority-data": base64(caPem) } }],
    users: [{ name: "test-user", user }],
    contexts: [
      { name: "test", context: { cluster: "test", user: "test-user", namespace: "default" } },
    ],
    "current-context": "test",
  });
}

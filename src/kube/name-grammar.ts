import { quote } from "../json/describe";

/** A DNS label (RFC 1123): namespaces, and a few other kinds of names. */
export const DNS_LABEL_MAX_LENGTH = 63;

/** A DNS subdomain (RFC 1123): names of most Kubernetes objects, Deployments and StatefulSets among them. */
const DNS_SUBDOMAIN_MAX_LENGTH = 253;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** An RFC 1123 label, as Kubernetes requires of a namespace: `a-z0-9` and inner `-`, at most 63 characters. */
export function isDnsLabel(name: unknown): name is string {
  return typeof name === "string" && name.length <= DNS_LABEL_MAX_LENGTH && DNS_LABEL.test(name);
}

/**
 * An RFC 1123 subdomain: labels joined by `.`, at most 253 characters. `.`,
 * `..`, `a/b` and `%2e` are not, so such a name can never become another URL path.
 */
export function isDnsSubdomain(name: unknown): name is string {
  return (
    typeof name === "string" && name.length <= DNS_SUBDOMAIN_MAX_LENGTH && DNS_SUBDOMAIN.test(name)
  );
}

/**
 * Why a namespace (a DNS label) or an object name (a DNS subdomain) cannot
 * name an object, or undefined when both given are valid.
 */
export function invalidNameProblem({
  namespace,
  name,
}: {
  readonly namespace?: unknown;
  readonly name?: unknown;
}): string | undefined {
  if (namespace !== undefined && !isDnsLabel(namespace)) {
    return (
      `the namespace ${quote(String(namespace))} is not a valid namespace name (an RFC 1123 ` +
      `label: at most ${DNS_LABEL_MAX_LENGTH} lowercase letters, digits and "-")`
    );
  }
  if (name !== undefined && !isDnsSubdomain(name)) {
    return (
      `the name ${quote(String(name))} is not a valid object name (an RFC 1123 subdomain: at ` +
      `most ${DNS_SUBDOMAIN_MAX_LENGTH} lowercase letters, digits, "-" and ".")`
    );
  }
  return undefined;
}

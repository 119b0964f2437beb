import { quote } from "../json/describe";

export const DNS_LABEL_MAX_LENGTH = 63;
const DNS_SUBDOMAIN_MAX_LENGTH = 253;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** An RFC 1123 label, as Kubernetes requires of a namespace. */
export function isDnsLabel(name: unknown): name is string {
  return typeof name === "string" && name.length <= DNS_LABEL_MAX_LENGTH && DNS_LABEL.test(name);
}

/** An RFC 1123 subdomain, as most object names are: `.`, `..`, `a/b` and `%2e` are not, so none becomes another URL path. */
export function isDnsSubdomain(name: unknown): name is string {
  return (
    typeof name === "string" && name.length <= DNS_SUBDOMAIN_MAX_LENGTH && DNS_SUBDOMAIN.test(name)
  );
}

/** Why a namespace or an object name cannot name an object, or undefined when both given are valid. */
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

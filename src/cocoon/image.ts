// The clone snapshot pull resolves `repo[:tag]` under a fixed registry base, so only a
// registry-relative reference (lowercase repository path, no registry port, no digest) can be
// cloned.

const REPO_COMPONENT = "[a-z0-9]+(?:(?:__|[._]|-+)[a-z0-9]+)*";
const TAG = "[A-Za-z0-9_][A-Za-z0-9._-]{0,127}";
const REGISTRY_RELATIVE_REFERENCE = new RegExp(
  `^${REPO_COMPONENT}(?:/${REPO_COMPONENT})*(?::${TAG})?$`,
);

// URL schemes are case-insensitive, so `HTTPS://` is a URL as much as `https://`.
const CLOUD_IMAGE_URL = /^https?:\/\//i;

export function isCloudImageUrl(image: string): boolean {
  return CLOUD_IMAGE_URL.test(image);
}

const REGISTRY_WITH_PORT = /^[^/]*:\d+\//;

/** Why `image` cannot be cloned, in words a user can act on; undefined when it can. */
export function cloneImageProblem(image: string): string | undefined {
  if (REGISTRY_RELATIVE_REFERENCE.test(image)) return undefined;
  if (isCloudImageUrl(image)) {
    return "a cloud-image URL cannot be cloned; use a registry-relative repo[:tag], or mode run to boot the URL";
  }
  if (image.includes("@")) {
    return "digests are not supported in clone mode; reference the image by repo[:tag]";
  }
  if (REGISTRY_WITH_PORT.test(image)) {
    return "a registry host with a port is not supported in clone mode (images resolve under a fixed registry base); give only repo[:tag]";
  }
  return 'must be repo[:tag]: lowercase alphanumeric components joined by ".", "_", "__" or "-", separated by "/", and an optional tag of up to 128 characters from [A-Za-z0-9_.-] not starting with "." or "-"';
}

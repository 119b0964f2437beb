/** A step into a JSON document: an object key or an array index. */
export type PathSegment = string | number;
export type PathSegments = readonly PathSegment[];

/** The printed form of a path, such as `spec.toolboxes[2].name`. */
export function formatPath(segments: PathSegments): string {
  // A plain loop: huge objects format a path per violation, and map/join costs several times more.
  let path = "";
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    if (typeof segment === "number") path += `[${segment}]`;
    else path += index === 0 ? segment : `.${segment}`;
  }
  return path;
}

export type PathSegment = string | number;
export type PathSegments = readonly PathSegment[];

/** The printed form of a path, such as `spec.toolboxes[2].name`. */
export function formatPath(segments: PathSegments): string {
  return segments
    .map((segment, index) =>
      typeof segment === "number" ? `[${segment}]` : index === 0 ? segment : `.${segment}`,
    )
    .join("");
}

import { describe, expect, test } from "bun:test";
import { cloneImageProblem, isCloudImageUrl } from "../../src/cocoon/image";

describe("a registry-relative reference, which clone mode accepts", () => {
  test.each([
    "repo",
    "org/repo:tag",
    "a.b_c__d--e/f:1.0-rc_1",
    "library/ubuntu:24.04",
    "docker.io/library/ubuntu",
    "a0/b1/c2:_",
    `repo:${"T".repeat(128)}`,
  ])("accepts %p", (image) => {
    expect(cloneImageProblem(image)).toBeUndefined();
  });

  test.each([
    "",
    "Repo",
    "org/Repo:tag",
    "localhost:5000/repo",
    "registry.example:443/org/repo:1",
    "repo@sha256:0123456789abcdef",
    "repo:tag@sha256:0123",
    "org//repo",
    "/repo",
    "repo/",
    ".repo",
    "repo.",
    "re...po",
    "re___po",
    "re_-po",
    "repo:",
    "repo:.tag",
    "repo:-tag",
    "repo:a:b",
    `repo:${"T".repeat(129)}`,
    "https://cloud.example/jammy.img",
    "re po",
  ])("rejects %p", (image) => {
    expect(cloneImageProblem(image)).toBeString();
  });

  test("stays fast on a hostile near-match", () => {
    const started = performance.now();
    cloneImageProblem(`${"a-".repeat(50_000)}!`);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe("isCloudImageUrl", () => {
  test.each([
    ["https://cloud.example/jammy.img", true],
    ["http://cloud.example/jammy.img", true],
    ["HTTPS://cloud.example/jammy.img", true],
    ["org/repo:1", false],
    ["ftp://cloud.example/jammy.img", false],
    ["httpsx://cloud.example", false],
  ])("%p → %p", (image, expected) => {
    expect(isCloudImageUrl(image)).toBe(expected);
  });
});

describe("cloneImageProblem", () => {
  test.each([
    ["https://cloud.example/jammy.img", "cloud-image URL"],
    ["org/repo@sha256:abc", "digests are not supported"],
    ["localhost:5000/org/repo", "registry host with a port"],
    ["Org/Repo", "must be repo[:tag]"],
  ])("explains %p", (image, explanation) => {
    expect(cloneImageProblem(image)).toContain(explanation);
  });

  test("is undefined for a valid reference", () => {
    expect(cloneImageProblem("org/repo:1")).toBeUndefined();
  });
});

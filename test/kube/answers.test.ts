import { describe, expect, test } from "bun:test";
import { decodeListItems, decodeObject, statusError } from "../../src/kube/answers";
import { KubeApiError } from "../../src/kube/port";

const operation = "LIST cocoonhibernations in default";

describe("decoding apiserver answers", () => {
  test("a list without an items array is an error", () => {
    expect(() => decodeListItems(operation, { status: 200, body: '{"kind":"List"}' })).toThrow(
      new KubeApiError(`${operation}: apiserver answered 200 with a list that has no items array`),
    );
  });

  test("items: null reads as an empty list", () => {
    expect(decodeListItems(operation, { status: 200, body: '{"items":null}' })).toEqual([]);
  });

  test("a body that is not JSON is an error quoting its start", () => {
    expect(() =>
      decodeObject(operation, { status: 200, body: "<html>proxy error</html>" }),
    ).toThrow(
      `${operation}: apiserver answered 200 with a body that is not JSON: <html>proxy error</html>`,
    );
  });

  test("a status error quotes a non-Status body, shortened", () => {
    const error = statusError(operation, { status: 502, body: `bad gateway ${"x".repeat(500)}` });
    expect(error.status).toBe(502);
    expect(error.message).toStartWith(
      `${operation}: apiserver answered 502 Bad Gateway: bad gateway x`,
    );
    expect(error.message.length).toBeLessThan(300);
  });
});

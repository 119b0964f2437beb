import https from "node:https";
import { anonymousRssBytes } from "./procfs";

/*
 * Uploads a client talking to the admission port directly can make: chunked
 * bodies that stall, bodies that trickle or stop, uploads cut off midway.
 * Each is one HTTPS request on its own connection.
 */

export interface UploadTarget {
  /** `https://127.0.0.1:PORT` of the admission listener. */
  readonly url: string;
  readonly ca: string;
}

export interface Upload {
  /** Sends more of the body (a chunk of its own when the upload is chunked). */
  write(bytes: string | Uint8Array): void;
  /** Sends the end of the body. */
  end(bytes?: string | Uint8Array): void;
  /** Cuts the connection off. */
  abort(): void;
  /** The answer's status and body; status 0 when the connection ended without one. */
  readonly answered: Promise<{ status: number; body: string }>;
  /** Resolves once the connection is closed, by either side. */
  readonly closed: Promise<void>;
}

/**
 * A POST of JSON to `path` whose body the caller sends piece by piece:
 * chunked unless `contentLength` is given.
 */
export function startUpload(target: UploadTarget, path: string, contentLength?: number): Upload {
  const { hostname, port } = new URL(target.url);
  const headers: Record<string, string | number> = { "content-type": "application/json" };
  if (contentLength !== undefined) headers["content-length"] = contentLength;
  const request = https.request({
    host: hostname,
    port,
    path,
    method: "POST",
    ca: target.ca,
    agent: false,
    headers,
  });
  const answered = new Promise<{ status: number; body: string }>((resolve) => {
    request.on("response", (response) => {
      let text = "";
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
      response.on("error", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on("error", (error) => resolve({ status: 0, body: error.message }));
    request.on("close", () => resolve({ status: 0, body: "closed without an answer" }));
  });
  const closed = new Promise<void>((resolve) => {
    request.on("socket", (socket) => socket.on("close", () => resolve()));
  });
  request.flushHeaders();
  return {
    write: (bytes) => {
      request.write(bytes);
    },
    end: (bytes) => {
      request.end(bytes);
    },
    abort: () => {
      request.destroy();
    },
    answered,
    closed,
  };
}

/** The peak of the process's anonymous memory (its heap) while `run` runs, sampled every 5 ms. */
export async function peakAnonymousWhile<T>(
  pid: number,
  run: () => Promise<T>,
): Promise<{ result: T; peakBytes: number }> {
  let peakBytes = anonymousRssBytes(pid);
  const sampler = setInterval(() => {
    peakBytes = Math.max(peakBytes, anonymousRssBytes(pid));
  }, 5);
  try {
    const result = await run();
    return { result, peakBytes };
  } finally {
    clearInterval(sampler);
  }
}

/** A pod review of about `bytes`, most of them one annotation: cheap to decode, costly to hold. */
export function paddedPodReviewBody(uid: string, bytes: number): string {
  const review = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      operation: "CREATE",
      namespace: "team-a",
      name: "padded",
      userInfo: { username: "alice" },
      object: { metadata: { name: "padded", annotations: { padding: "" } }, spec: {} },
    },
  };
  const shell = JSON.stringify(review).length;
  review.request.object.metadata.annotations.padding = "x".repeat(Math.max(0, bytes - shell));
  return JSON.stringify(review);
}

/** Sends `body` in chunks of `chunkBytes`, each written as its own chunk. */
export function writeInChunks(upload: Upload, body: string, chunkBytes = 64 * 1024): void {
  for (let offset = 0; offset < body.length; offset += chunkBytes) {
    upload.write(body.slice(offset, offset + chunkBytes));
  }
}

/**
 * `count` chunked uploads to /mutate that each send about `bytesEach` of a
 * review and never the final chunk; resolves with their answers once every
 * connection has ended (the webhook's read deadline, or its size limit).
 */
export async function stalledChunkedUploads(
  target: UploadTarget,
  count: number,
  bytesEach: number,
): Promise<{ status: number; body: string }[]> {
  const uploads = Array.from({ length: count }, (_, index) => {
    const upload = startUpload(target, "/mutate");
    writeInChunks(
      upload,
      paddedPodReviewBody(`stalled-${index}`, bytesEach + 1024).slice(0, bytesEach),
    );
    return upload;
  });
  const answers = await Promise.all(uploads.map((upload) => upload.answered));
  for (const upload of uploads) upload.abort();
  return answers;
}

/** `count` complete chunked pod reviews of about `bytesEach`, sent at once; their answers. */
export function concurrentChunkedReviews(
  target: UploadTarget,
  count: number,
  bytesEach: number,
): Promise<{ status: number; body: string }[]> {
  return Promise.all(
    Array.from({ length: count }, (_, index) => {
      const upload = startUpload(target, "/mutate");
      writeInChunks(upload, paddedPodReviewBody(`chunked-${index}`, bytesEach));
      upload.end();
      return upload.answered;
    }),
  );
}

export interface SlowSenderOutcome {
  /** Statuses of the three reviews sent behind the slow sender. */
  readonly behind: number[];
  /** How long the last of them took. */
  readonly waitedMs: number;
  /** The slow sender's own answer, once its connection has closed. */
  readonly slow: { status: number; body: string };
}

/**
 * A sender that declares a 3 MiB body and trickles it a byte every
 * `everyMs`, and three 392 KB pod reviews sent just after it through `post`.
 */
export async function reviewsBehindSlowSender(
  target: UploadTarget,
  post: (body: string) => Promise<Response>,
  everyMs: number,
): Promise<SlowSenderOutcome> {
  const slow = startUpload(target, "/mutate", 3 * 1024 * 1024);
  slow.write("{");
  const trickle = setInterval(() => slow.write(" "), everyMs);
  try {
    await Bun.sleep(50); // deliberate: the slow sender takes its turn first
    const sentAt = performance.now();
    const behind = await Promise.all(
      [1, 2, 3].map(async (index) => {
        const answer = await post(paddedPodReviewBody(`behind-${index}`, 392_000));
        await answer.arrayBuffer();
        return answer.status;
      }),
    );
    const waitedMs = performance.now() - sentAt;
    const answer = await slow.answered;
    await slow.closed;
    return { behind, waitedMs, slow: answer };
  } finally {
    clearInterval(trickle);
    slow.abort();
  }
}

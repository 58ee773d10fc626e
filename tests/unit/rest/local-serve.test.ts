/**
 * spurrestd's rest_auth/local mode (rest/local-serve): a client of the Unix socket is named by
 * the kernel, and the listener behind the relay has the limits of every other listener: a
 * client that sends nothing, or never finishes its headers, is cut off (the inner Bun.serve
 * it replaced never closed them). No timing assertions: a connection left open runs into the
 * test's timeout.
 */
import { mkdtempSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serveLocal, type LocalServed } from "../../../src/net/rest/local-serve.ts";

const served: LocalServed[] = [];
afterEach(async () => {
  for (const s of served.splice(0)) await s.stop();
});

async function local(): Promise<{ path: string; s: LocalServed }> {
  const path = join(mkdtempSync(join(tmpdir(), "spur-local-")), "rest.sock");
  const s: LocalServed = await serveLocal(path, (req, env) => {
    const port = env.requestIP(req)?.port ?? 0;
    return new Response(JSON.stringify({ uid: s.peerOf(port) ?? null }), { headers: { "content-type": "application/json" } });
  }, { bodyBytesMax: 1000, limits: { headersMs: 200, idleMs: 200 } });
  served.push(s);
  return { path, s };
}

/** Connect to the socket, write `text`, resolve with what came back once the relay closes. */
function exchange(path: string, text: string): Promise<string> {
  let got = "";
  return new Promise((done) => {
    const sock = connect({ path }, () => sock.write(text));
    sock.on("data", (d) => (got += String(d)));
    sock.on("error", () => undefined);
    sock.on("close", () => done(got));
  });
}

describe("rest_auth/local listener", () => {
  it("names the caller by its uid and answers", async () => {
    const { path } = await local();
    const answer = await exchange(path, "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain(`{"uid":${process.getuid?.() ?? 0}}`);
  }, 10_000);

  it("closes a client that sends nothing, and one whose headers never finish", async () => {
    const { path } = await local();
    expect(await exchange(path, "")).toBe("");
    expect(await exchange(path, "GET /x HTTP/1.1\r\nHost: x\r\nX-Half")).toBe("");
  }, 10_000);
});

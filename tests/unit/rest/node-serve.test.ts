/**
 * spurrestd's public listener (rest/node-serve): the hono app answers as it did under
 * Bun.serve (status, headers, body, the client's address through env.requestIP), and the
 * listener closes connections that never finish their headers, which Bun.serve left open.
 */
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { serveFetch, type NodeServed } from "../../../src/net/rest/node-serve.ts";
import { partsResponse } from "../../../src/net/rest/raw-json.ts";

const served: NodeServed[] = [];
afterEach(async () => {
  for (const s of served.splice(0)) await s.stop();
});

describe("REST listener on node:http", () => {
  it("hands the app a standard Request and writes its Response", async () => {
    const s = await serveFetch(async (req, env) => {
      const body = req.method === "POST" ? await req.text() : "";
      return new Response(JSON.stringify({ method: req.method, path: new URL(req.url).pathname, body, token: req.headers.get("x-slurm-user-token"), ip: env.requestIP(req)?.address }), {
        status: 201, headers: { "content-type": "application/json", "x-extra": "1" },
      });
    }, { hostname: "127.0.0.1", port: 0, bodyBytesMax: 1000 });
    served.push(s);
    const res = await fetch(`http://127.0.0.1:${s.port}/slurm/v0.0.40/job/submit`, { method: "POST", headers: { "x-slurm-user-token": "t" }, body: "{\"a\":1}" });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-extra")).toBe("1");
    expect(await res.json()).toEqual({ method: "POST", path: "/slurm/v0.0.40/job/submit", body: "{\"a\":1}", token: "t", ip: "127.0.0.1" });
  });

  it("writes a body in parts as the parts joined, with their length, and the same body to a reader of the Response", async () => {
    const parts = ["{", '"jobs":[1,2,3]', ',"x":"\u00e9"}'].map((t) => Buffer.from(t));
    expect(await partsResponse(parts).text()).toBe(Buffer.concat(parts).toString("utf8"));
    const s = await serveFetch(() => partsResponse(parts), { hostname: "127.0.0.1", port: 0, bodyBytesMax: 1000 });
    served.push(s);
    const res = await fetch(`http://127.0.0.1:${s.port}/x`);
    expect(res.headers.get("content-length")).toBe(String(Buffer.concat(parts).length));
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ jobs: [1, 2, 3], x: "\u00e9" });
  });

  it("writes a body larger than several slices whole, in order, over a real socket", async () => {
    // 9 MiB + a few bytes: three slices of write-parts' size and a short one, each byte telling its place.
    const middle = Buffer.alloc(9 * 2 ** 20 + 5);
    for (let i = 0; i < middle.length; i++) middle[i] = 0x61 + (i % 26);
    const parts = [Buffer.from('{"x":"'), middle, Buffer.from('"}')];
    const s = await serveFetch(() => partsResponse(parts), { hostname: "127.0.0.1", port: 0, bodyBytesMax: 1000 });
    served.push(s);
    const got = Buffer.from(await (await fetch(`http://127.0.0.1:${s.port}/x`)).arrayBuffer());
    expect(got.equals(Buffer.concat(parts))).toBe(true);
  });

  it("answers 413 to a body far over the cap and closes a connection whose headers never finish", async () => {
    const s = await serveFetch(() => new Response("never"), { hostname: "127.0.0.1", port: 0, bodyBytesMax: 1000 });
    served.push(s);
    const big = await fetch(`http://127.0.0.1:${s.port}/x`, { method: "POST", body: "x".repeat(10_000) });
    expect(big.status).toBe(413);
    // The default header limit is 10 s; the test's timeout (30 s) is the failure if it never closes.
    const sock = connect(s.port, "127.0.0.1", () => sock.write("GET /x HTTP/1.1\r\nHost: x\r\nX-Half"));
    sock.on("error", () => undefined);
    await new Promise((done) => sock.on("close", done));
  }, 30_000);
});

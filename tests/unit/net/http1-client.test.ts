/**
 * @module tests/unit/net/http1-client
 * A CLI's one-shot controller call (net/ctl-client/http1.ts): one HTTP/1.1 POST on a socket of
 * its own must answer exactly what fetch answers (status, body, Slurm's errno header), whether
 * the server sends a content-length, chunks, or just closes; and the CLI's port
 * (controllerPort(..., "one-shot")) gives the same results and errors as the fetch port.
 */
import { createServer, type Server } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { answerSize, dechunk, parseHttp1, postHttp1 } from "../../../src/net/ctl-client/http1.ts";
import { controllerPort } from "../../../src/net/ctl-client/controller-port.ts";
import { Controller } from "../../../src/net/gen/spur/v1/controller_pb.ts";
import { startRpcServer, type RpcServer } from "../../../src/net/rpc-server.ts";
import { rejectIfError } from "../../../src/ctld/service-context.ts";
import { rejected } from "../../../src/sched/model/apply-result.ts";
import { errnoOf } from "../../../src/net/ctl-client/rpc-errno.ts";
import { RpcError } from "../../../src/net/ctl-port.ts";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

describe("parseHttp1", () => {
  it("waits for the whole body by content-length, then gives status, headers and body", () => {
    const whole = enc("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Slurm-Errno: 7\r\n\r\nhello");
    expect(parseHttp1(whole.subarray(0, 20), false)).toBeUndefined();
    expect(parseHttp1(whole.subarray(0, whole.length - 1), false)).toBeUndefined();
    const a = parseHttp1(whole, false);
    expect(a?.status).toBe(200);
    expect(a?.headers).toContainEqual(["x-slurm-errno", "7"]);
    expect(text(a?.body ?? new Uint8Array())).toBe("hello");
    expect(answerSize(whole.subarray(0, 20))).toBeUndefined();
    expect(answerSize(whole)).toBe(whole.length);
  });

  it("decodes chunks, and takes what came before the close when the head names no length", () => {
    const chunked = enc("HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n");
    expect(answerSize(chunked)).toBe(Infinity);
    const a = parseHttp1(chunked, true);
    expect(a?.status).toBe(400);
    expect(text(a?.body ?? new Uint8Array())).toBe("abcde");
    expect(dechunk(enc("3\r\nab"))).toBeUndefined();
    const closed = enc("HTTP/1.0 200 OK\r\n\r\nrest of it");
    expect(parseHttp1(closed, false)).toBeUndefined();
    expect(text(parseHttp1(closed, true)?.body ?? new Uint8Array())).toBe("rest of it");
  });

  it("keeps a body's UTF-8 intact across the byte offsets", () => {
    const body = enc('{"m":"é ü 日本"}');
    const head = enc(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`);
    const all = new Uint8Array(head.length + body.length);
    all.set(head);
    all.set(body, head.length);
    expect(text(parseHttp1(all, false)?.body ?? new Uint8Array())).toBe('{"m":"é ü 日本"}');
  });

  it("refuses what is not HTTP", () => {
    expect(() => parseHttp1(enc("SSH-2.0-OpenSSH\r\n\r\n"), true)).toThrow(/not an HTTP/);
  });
});

const servers: { close(): unknown }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

function listen(server: Server): Promise<number> {
  servers.push({ close: () => new Promise((r) => server.close(r)) });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
}

describe("postHttp1 against servers", () => {
  it("answers what fetch answers: chunked, a large body, and a server that closes at once", async () => {
    const big = "x".repeat(3 * 1024 * 1024);
    const port = await listen(createServer((req, res) => {
      let got = "";
      req.on("data", (c) => (got += c));
      req.on("end", () => {
        if (req.url === "/chunked") {
          res.writeHead(200, { "content-type": "application/json" });
          res.write(`{"echo":${JSON.stringify(got)},`);
          res.end('"n":1}');
        } else if (req.url === "/big") res.end(big);
        else {
          res.writeHead(503, { "x-slurm-errno": "1007" });
          res.end(JSON.stringify({ code: "unavailable", message: "busy" }));
        }
      });
    }));
    const url = (p: string) => `http://127.0.0.1:${port}${p}`;
    for (const path of ["/chunked", "/big", "/fail"]) {
      const viaFetch = await fetch(url(path), { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":"é"}' });
      const viaSocket = await postHttp1(url(path), { "content-type": "application/json" }, '{"a":"é"}');
      expect(viaSocket.status, path).toBe(viaFetch.status);
      expect(viaSocket.headers.get("x-slurm-errno"), path).toBe(viaFetch.headers.get("x-slurm-errno"));
      expect(await viaSocket.text(), path).toBe(await viaFetch.text());
    }
  });

  it("rejects when nobody listens, and when the server closes before its answer is whole", async () => {
    const dead = createServer();
    const port = await new Promise<number>((resolve) => dead.listen(0, "127.0.0.1", () => resolve((dead.address() as { port: number }).port)));
    await new Promise<void>((r) => dead.close(() => r()));
    await expect(postHttp1(`http://127.0.0.1:${port}/x`, {}, "{}")).rejects.toBeDefined();
    const cut = await listen(createServer((_req, res) => {
      res.socket?.end("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc");
    }));
    await expect(postHttp1(`http://127.0.0.1:${cut}/x`, {}, "{}")).rejects.toThrow(/before the whole answer/);
  });

  it("takes the announced body from a server that sends more than its content-length, in pieces", async () => {
    const body = "y".repeat(200_000);
    const port = await listen(createServer((_req, res) => {
      const sock = res.socket;
      sock?.write(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 1000)}`);
      setTimeout(() => sock?.write(body.slice(1000, 150_000)), 5);
      setTimeout(() => sock?.end(`${body.slice(150_000)}TRAILING GARBAGE`), 10);
    }));
    const answer = await postHttp1(`http://127.0.0.1:${port}/x`, {}, "{}");
    expect((await answer.text()) === body).toBe(true);
  });
});

describe("the CLI's one-shot port", () => {
  let rpc: RpcServer;
  const start = async (): Promise<string> => {
    rpc = await startRpcServer((router) => {
      router.service(Controller, {
        ping: () => ({ controller: "c1", primary: true, now: 5, version: "v", pid: 1, started: 2 }),
        cancel: () => {
          rejectIfError(rejected("InvalidJobId", "Invalid job id specified"));
          return { results: [] };
        },
      } as never);
    }, { host: "127.0.0.1", port: 0 });
    servers.push(rpc);
    return `http://127.0.0.1:${rpc.port}`;
  };

  it("gives the fetch port's answers and errors (code, message, Slurm's errno)", async () => {
    const base = await start();
    const oneShot = controllerPort(base, {}, undefined, "one-shot");
    const viaFetch = controllerPort(base);
    expect(await oneShot.ping()).toEqual(await viaFetch.ping());
    const errorOf = async (p: typeof oneShot): Promise<RpcError> => {
      try {
        await p.cancel({ filter: { jobIds: ["9"] } } as never);
      } catch (e) {
        return e as RpcError;
      }
      throw new Error("cancel did not fail");
    };
    const a = await errorOf(oneShot);
    const b = await errorOf(viaFetch);
    expect(a).toBeInstanceOf(RpcError);
    expect([a.code, a.message, a.errno]).toEqual([b.code, b.message, b.errno]);
    expect([a.code, a.message, a.errno]).toEqual(["invalid_argument", "Invalid job id specified", 2017]);
    const down = controllerPort("http://127.0.0.1:1", {}, undefined, "one-shot");
    await expect(down.ping()).rejects.toThrow("Unable to contact slurm controller (connect failure)");
    expect(errnoOf(new Response(null, { headers: { "x-slurm-errno": "2017" } }))).toBe(2017);
  });
});

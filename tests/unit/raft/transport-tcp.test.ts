/**
 * @module tests/unit/raft/transport-tcp
 * The controllers' Raft transport on loopback: messages (payload bytes included) arrive in
 * order; a peer without the shared secret reaches the listener, is cut off and delivers nothing;
 * two ends of this version switch to binary frames, and either end of an older version (JSON
 * lines only) still talks to one of this version; a dialer that switches without being offered
 * frames, or sends a damaged frame, is cut off.
 */
import { type Socket, connect, createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../../src/raft/core/index.ts";
import { createTcpTransport, listenRaft, type WireVersion } from "../../../src/raft/transport-tcp.ts";
import { encodeFrame } from "../../../src/raft/wire-binary.ts";
import { msg } from "./harness.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const until = async (cond: () => boolean) => {
  const deadline = Date.now() + 5000;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
};

/** A TCP proxy to `port` that counts connections and those the far end (the listener) ended, and keeps what dialers sent. */
async function countingProxy(port: number) {
  const stats = { accepted: 0, hungUpByListener: 0, sent: [] as Buffer[] };
  const sockets: Socket[] = [];
  const server = createServer((client) => {
    stats.accepted += 1;
    const upstream = connect(port, "127.0.0.1");
    sockets.push(client, upstream);
    client.on("data", (b: Buffer) => stats.sent.push(b));
    client.pipe(upstream);
    upstream.pipe(client);
    // "end": the listener sent FIN (s.end()); our own destroy() below never emits it.
    upstream.on("end", () => {
      stats.hungUpByListener += 1;
      client.destroy();
    });
    client.on("close", () => upstream.destroy());
    client.on("error", () => undefined);
    upstream.on("error", () => undefined);
  });
  await new Promise<void>((res) => server.listen(0, "127.0.0.1", res));
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : 0,
    stats,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

function app(i: number): Message {
  return { ...msg({ type: "app", from: 1, to: 2, term: 3 }), index: i, entries: [{ term: 3, index: i + 1, type: "normal", data: new Uint8Array([i, 255, 0]) }] };
}

describe("raft TCP transport", () => {
  it("delivers batches in order with payload bytes intact", async () => {
    const got: Message[] = [];
    const server = listenRaft({ host: "127.0.0.1", port: 0 }, "s3cret", (ms) => got.push(...ms));
    const t = createTcpTransport(1, [{ id: 2, host: "127.0.0.1", port: server.port }], "s3cret", 10);
    cleanups.push(() => t.stop(), () => server.stop(true));
    // The first send only opens the connection (its messages are dropped, as Raft allows).
    for (let i = 0; i < 50 && got.length === 0; i++) {
      t.send([app(0)]);
      await new Promise((r) => setTimeout(r, 20));
    }
    got.length = 0;
    t.send([app(1), app(2)]);
    t.send([app(3)]);
    await until(() => got.length >= 3);
    expect(got.map((m) => m.index)).toEqual([1, 2, 3]);
    expect([...(got[1]?.entries[0]?.data ?? [])]).toEqual([2, 255, 0]);
    expect(got[0]?.type).toBe("app");
  });

  it("refuses a peer with the wrong secret: the connection is made, reaches the listener, and the listener hangs up", async () => {
    // Through a counting proxy: the dialer's own "peer lost" also fires on a connection that was
    // never opened (connectError), so only the listener's side shows the refusal happened.
    const run = async (dialSecret: string) => {
      const got: Message[] = [];
      const server = listenRaft({ host: "127.0.0.1", port: 0 }, "right", (ms) => got.push(...ms));
      const proxy = await countingProxy(server.port);
      const t = createTcpTransport(1, [{ id: 2, host: "127.0.0.1", port: proxy.port }], dialSecret, 10);
      cleanups.push(() => t.stop(), () => server.stop(true), () => proxy.close());
      for (let i = 0; i < 100 && proxy.stats.hungUpByListener === 0 && got.length === 0; i++) {
        t.send([app(i)]);
        await new Promise((r) => setTimeout(r, 10));
      }
      return { got, stats: proxy.stats };
    };
    const wrong = await run("wrong");
    expect(wrong.stats.accepted).toBeGreaterThan(0); // the dialer did connect
    expect(wrong.stats.hungUpByListener).toBeGreaterThan(0); // and the listener ended it
    expect(wrong.got).toEqual([]);
    // The same path with the right secret delivers, and the listener keeps the connection.
    const right = await run("right");
    expect(right.got.length).toBeGreaterThan(0);
    expect(right.stats.hungUpByListener).toBe(0);
  });

  it("reports a peer whose connection closes, on both ends", async () => {
    const got: Message[] = [];
    const lostAtServer: number[] = [];
    const lostAtClient: number[] = [];
    const server = listenRaft({ host: "127.0.0.1", port: 0 }, "s3cret", (ms) => got.push(...ms), (id) => lostAtServer.push(id));
    const t = createTcpTransport(1, [{ id: 2, host: "127.0.0.1", port: server.port }], "s3cret", 10, (id) => lostAtClient.push(id));
    cleanups.push(() => t.stop());
    for (let i = 0; i < 50 && got.length === 0; i++) {
      t.send([app(0)]);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(got.length).toBeGreaterThan(0);
    expect(lostAtClient).toEqual([]);
    // The listening side goes away (a killed process): the dialing side hears of it.
    server.stop(true);
    await until(() => lostAtClient.length > 0);
    expect(lostAtClient[0]).toBe(2);
    // And the dialing side going away is reported by the listener, with the greeting's id.
    const server2 = listenRaft({ host: "127.0.0.1", port: 0 }, "s3cret", (ms) => got.push(...ms), (id) => lostAtServer.push(id));
    cleanups.push(() => server2.stop(true));
    const t2 = createTcpTransport(7, [{ id: 2, host: "127.0.0.1", port: server2.port }], "s3cret", 10);
    got.length = 0;
    lostAtServer.length = 0;
    for (let i = 0; i < 50 && got.length === 0; i++) {
      t2.send([app(0)]);
      await new Promise((r) => setTimeout(r, 20));
    }
    t2.stop();
    await until(() => lostAtServer.length > 0);
    expect(lostAtServer).toEqual([7]);
  });

  it("closes a connection that does not greet in time, or sends a long line before greeting", async () => {
    const server = listenRaft({ host: "127.0.0.1", port: 0 }, "s3cret", () => undefined, () => undefined, undefined, 200);
    cleanups.push(() => server.stop(true));
    const closed = (write: string) =>
      new Promise<void>((done) => {
        const sock = connect(server.port, "127.0.0.1", () => sock.write(write));
        sock.on("error", () => undefined);
        sock.on("close", () => done());
      });
    // No timing assertion: a connection left open runs into the test's timeout.
    await closed("");
    await closed('{"secret":"s3c');
    const flood = new Promise<void>((done) => {
      // 8 KiB: over the 4 KiB a greeting may take, small enough to sit in the socket buffer at once (a larger
      // write still pending when the server hangs up kept the test worker spinning under load).
      const sock = connect(server.port, "127.0.0.1", () => sock.write("x".repeat(8 * 1024)));
      sock.on("error", () => undefined);
      sock.on("close", () => done());
    });
    await flood;
  }, 10_000);

  it("switches to binary frames between two ends of this version, keeps JSON lines with an older end", async () => {
    const run = async (dialer: WireVersion, listener: WireVersion) => {
      const got: Message[] = [];
      const server = listenRaft({ host: "127.0.0.1", port: 0 }, "s3cret", (ms) => got.push(...ms), () => undefined, undefined, undefined, listener);
      const proxy = await countingProxy(server.port);
      const t = createTcpTransport(1, [{ id: 2, host: "127.0.0.1", port: proxy.port }], "s3cret", 10, () => undefined, undefined, dialer);
      cleanups.push(() => t.stop(), () => server.stop(true), () => proxy.close());
      for (let i = 0; i < 50 && got.length === 0; i++) {
        t.send([app(0)]);
        await new Promise((r) => setTimeout(r, 20));
      }
      // Give the offer time to come back, then check that what follows arrives whole and in order.
      await new Promise((r) => setTimeout(r, 50));
      got.length = 0;
      for (let i = 1; i <= 20; i++) t.send([app(i)]);
      await until(() => got.length >= 20);
      expect(got.map((m) => m.index), `dialer ${dialer}, listener ${listener}`).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect([...(got[4]?.entries[0]?.data ?? [])]).toEqual([5, 255, 0]);
      expect(proxy.stats.hungUpByListener).toBe(0);
      return Buffer.concat(proxy.stats.sent).includes('\n"binary"\n');
    };
    expect(await run(2, 2)).toBe(true);
    expect(await run(2, 1)).toBe(false);
    expect(await run(1, 2)).toBe(false);
  });

  it("cuts off a dialer that switches to frames unasked, or sends a damaged frame", async () => {
    const got: Message[] = [];
    const server = listenRaft({ host: "127.0.0.1", port: 0 }, "s3cret", (ms) => got.push(...ms));
    cleanups.push(() => server.stop(true));
    const session = (greeting: object, after: (sock: Socket) => void) =>
      new Promise<string>((done) => {
        let answer = "";
        const sock = connect(server.port, "127.0.0.1", () => sock.write(`${JSON.stringify(greeting)}\n`));
        sock.on("data", (b: Buffer) => {
          answer += b.toString();
          after(sock);
        });
        sock.on("error", () => undefined);
        sock.on("close", () => done(answer));
        // Not offered (no wire 2 in the greeting): the listener answers nothing, so switch anyway after a moment.
        if (!("wire" in greeting)) setTimeout(() => after(sock), 50);
      });
    // Unasked: no offer in the greeting, then the switch line and a good frame.
    expect(await session({ secret: "s3cret", from: 1 }, (sock) => sock.write(Buffer.concat([Buffer.from('"binary"\n'), encodeFrame([app(1)])])))).toBe("");
    // Offered, switched, then a frame whose body does not parse.
    const bad = Buffer.from(encodeFrame([app(2)]));
    bad.write("zzz", 9, "latin1");
    expect(await session({ secret: "s3cret", from: 1, wire: 2 }, (sock) => sock.write(Buffer.concat([Buffer.from('"binary"\n'), bad])))).toBe('{"wire":2}\n');
    expect(got).toEqual([]);
  }, 10_000);
});

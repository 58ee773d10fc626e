/**
 * srun's stdin fan-out (roles/cli/srun-stdin): nothing is read until every
 * node that expects stdin has subscribed (a late node would miss the start),
 * each subscriber gets every byte and then eof, a dropped node is not waited
 * for, and reading pauses while a subscriber holds too much.
 */
import { describe, expect, it } from "vitest";
import { PassThrough } from "node:stream";
import { createStdinFeed, type InputChunk } from "../../../src/roles/cli/srun-stdin.ts";

async function collect(it: AsyncIterable<InputChunk>): Promise<string> {
  let text = "";
  for await (const c of it) text += c.eof ? "<eof>" : c.winRows ? `<${c.winRows}x${c.winCols}>` : new TextDecoder().decode(c.data);
  return text;
}

describe("createStdinFeed", () => {
  it("waits for every expected node, then gives each all of the input and eof", async () => {
    const source = new PassThrough();
    const feed = createStdinFeed(source, new Set(["n1", "n2"]));
    source.write("ab");
    const one = collect(feed.subscribe("n1", new AbortController().signal));
    expect(source.readableFlowing).toBe(null); // never read before n2 is in
    const two = collect(feed.subscribe("n2", new AbortController().signal));
    source.end("cd");
    expect(await one).toBe("abcd<eof>");
    expect(await two).toBe("abcd<eof>");
  });

  it("a dropped node is not waited for", async () => {
    const source = new PassThrough();
    const feed = createStdinFeed(source, new Set(["n1", "n2"]));
    const one = collect(feed.subscribe("n1", new AbortController().signal));
    feed.drop("n2");
    source.end("x");
    expect(await one).toBe("x<eof>");
  });

  it("a subscriber after the end gets eof at once", async () => {
    const source = new PassThrough();
    const feed = createStdinFeed(source, new Set(["n1"]));
    const first = collect(feed.subscribe("n1", new AbortController().signal));
    source.end();
    expect(await first).toBe("<eof>");
    expect(await collect(feed.subscribe("n1", new AbortController().signal))).toBe("<eof>");
  });

  it("pauses reading while a subscriber holds more than the limit, resumes as it drains", async () => {
    const source = new PassThrough();
    const feed = createStdinFeed(source, new Set(["n1"]), 4);
    const iterator = feed.subscribe("n1", new AbortController().signal)[Symbol.asyncIterator]();
    source.write("123456");
    await new Promise<void>((resolve) => setImmediate(resolve)); // let the 'data' event run
    expect(source.isPaused()).toBe(true);
    const first = await iterator.next();
    expect(new TextDecoder().decode(first.value?.data)).toBe("123456");
    expect(source.isPaused()).toBe(false);
    feed.close();
  });

  it("close ends every subscription", async () => {
    const source = new PassThrough();
    const feed = createStdinFeed(source, new Set(["n1"]));
    const one = collect(feed.subscribe("n1", new AbortController().signal));
    feed.close();
    expect(await one).toBe("");
  });

  it("srun --pty: a window change reaches every subscriber in order with the input; none after the end", async () => {
    const source = new PassThrough();
    const feed = createStdinFeed(source, new Set(["n1"]));
    const one = collect(feed.subscribe("n1", new AbortController().signal));
    source.write("a");
    await new Promise((r) => setImmediate(r));
    feed.resize(40, 100);
    source.end("b");
    expect(await one).toBe("a<40x100>b<eof>");
    feed.resize(10, 20);
    expect(await collect(feed.subscribe("n1", new AbortController().signal))).toBe("<eof>");
  });

  it("srun --pty: the end of srun's stdin is not passed on, window changes still are", async () => {
    const source = new PassThrough();
    const feed = createStdinFeed(source, new Set(["n1"]), undefined, false);
    const stop = new AbortController();
    const chunks: string[] = [];
    const done = (async () => {
      for await (const c of feed.subscribe("n1", stop.signal)) {
        chunks.push(c.eof ? "<eof>" : c.winRows ? `<${c.winRows}x${c.winCols}>` : new TextDecoder().decode(c.data));
        if (c.winRows === 30) stop.abort();
      }
    })();
    source.end("x");
    await new Promise((r) => source.once("end", r));
    feed.resize(30, 90);
    await done;
    expect(chunks).toEqual(["x", "<30x90>"]);
  });

  it("srun --pty: a node that subscribes after a window change gets the latest size first", async () => {
    const source = new PassThrough();
    const feed = createStdinFeed(source, new Set(["n1"]), undefined, false);
    feed.resize(10, 20);
    feed.resize(30, 60);
    const stop = new AbortController();
    const chunks: string[] = [];
    const done = (async () => {
      for await (const c of feed.subscribe("n1", stop.signal)) {
        chunks.push(c.winRows ? `<${c.winRows}x${c.winCols}>` : new TextDecoder().decode(c.data));
        if (chunks.length === 2) stop.abort();
      }
    })();
    source.write("k");
    await done;
    expect(chunks).toEqual(["<30x60>", "k"]);
  });
});

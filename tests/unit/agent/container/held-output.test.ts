/**
 * A container job's input file reaches its relay's pipe before the runtime starts, and the
 * relay may be gone by then: its output must be consumed from the moment it is spawned,
 * since Bun drops what a child left unread in its pipe when it exits (see batch-io.ts).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import type { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { heldOutput } from "../../../../src/agent/container/batch-io.ts";

async function readAll(r: Readable): Promise<string> {
  let text = "";
  for await (const chunk of r) text += String(chunk);
  return text;
}

describe("heldOutput", () => {
  it("keeps what a child wrote though it exited before anything read it", async () => {
    const child = spawn("/bin/sh", ["-c", "printf 'from stdin\\n'; printf 'x%.0s' $(seq 1 3000)"], { stdio: ["ignore", "pipe", "ignore"] });
    const held = heldOutput(child.stdout);
    await once(child, "exit");
    await new Promise((resolve) => setImmediate(resolve));
    expect(await readAll(held)).toBe(`from stdin\n${"x".repeat(3000)}`);
  });

  it("is an ended stream where the child has no pipe", async () => {
    expect(await readAll(heldOutput(null))).toBe("");
  });
});
